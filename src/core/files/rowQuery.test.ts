import { describe, expect, it } from "vitest";
import { row } from "../../test/rowSummaryBuilders";
import type { RowDrift } from "../drift/rowDrift";
import {
  type DriftByRow,
  driftRank,
  queryFromParams,
  queryToParams,
  type RowQuery,
  selectRows,
} from "./rowQuery";

const rows = [
  row(0, { reward: 1, totalTokens: 300, status: "completed", searchText: "the answer is 42" }),
  row(1, { reward: -1, totalTokens: 100, status: "truncated", finishReason: "length" }),
  row(2, { reward: undefined, totalTokens: 200, status: "aborted", toolErrors: 2 }),
  row(3, { reward: 0.5, totalTokens: 100, status: "completed", group: "g", id: "EP-X" }),
];

describe("selectRows", () => {
  const cases: { name: string; query: RowQuery; want: number[] }[] = [
    { name: "no query keeps file order", query: {}, want: [0, 1, 2, 3] },
    { name: "status", query: { status: ["completed", "aborted"] }, want: [0, 2, 3] },
    { name: "reward range excludes missing", query: { rewardMin: 0, rewardMax: 1 }, want: [0, 3] },
    { name: "length range", query: { lengthMin: 150, lengthMax: 300 }, want: [0, 2] },
    { name: "has tool errors", query: { hasToolErrors: true }, want: [2] },
    { name: "no tool errors", query: { hasToolErrors: false }, want: [0, 1, 3] },
    { name: "finish reason", query: { finishReason: "length" }, want: [1] },
    { name: "group", query: { group: "g" }, want: [3] },
    { name: "text is case-insensitive", query: { text: "ANSWER" }, want: [0] },
    { name: "sort by reward, missing last", query: { sort: "reward" }, want: [1, 3, 0, 2] },
    {
      name: "sort by reward descending, missing still last",
      query: { sort: "reward", descending: true },
      want: [0, 3, 1, 2],
    },
    { name: "ties keep file order", query: { sort: "totalTokens" }, want: [1, 3, 2, 0] },
    { name: "sort by id", query: { sort: "id" }, want: [3, 0, 1, 2] },
    { name: "index descending", query: { descending: true }, want: [3, 2, 1, 0] },
    {
      name: "filter and sort together",
      query: { status: ["completed"], sort: "reward", descending: true },
      want: [0, 3],
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(selectRows(rows, c.query)).toEqual(c.want));
  }
});

describe("URL params", () => {
  it("round-trips every field", () => {
    const query: RowQuery = {
      status: ["completed", "truncated"],
      rewardMin: -0.5,
      rewardMax: 1,
      lengthMin: 10,
      lengthMax: 20000,
      hasToolErrors: false,
      finishReason: "length",
      group: "L7",
      text: "tool_call",
      sort: "meanLogprob",
      descending: true,
    };
    const params = new URLSearchParams(queryToParams(query));
    expect(params.toString()).toBe(
      "status=completed%2Ctruncated&rewardMin=-0.5&rewardMax=1&lengthMin=10&lengthMax=20000&toolErrors=0&finish=length&group=L7&q=tool_call&sort=meanLogprob&desc=1",
    );
    expect(queryFromParams((n) => params.get(n))).toEqual(query);
  });

  it("ignores values it cannot read instead of failing", () => {
    const params = new URLSearchParams(
      "status=done,completed&rewardMin=abc&sort=nope&toolErrors=x",
    );
    const q = queryFromParams((n) => params.get(n));
    expect(q.status).toEqual(["completed"]);
    expect(q.rewardMin).toBeUndefined();
    expect(q.sort).toBeUndefined();
    expect(q.hasToolErrors).toBeUndefined();
  });
});

describe("drift filter and column", () => {
  const clean = rowDrift({});
  // Row 0 clean, row 1 drift outside trained tokens (2 regions), row 2 drift on 3 trained tokens
  // (1 region), row 3 not checked (a tailed file grew after the scan).
  const drift: DriftByRow = [
    clean,
    rowDrift({ regions: 2, trainableAffected: 0, firstDivergenceIndex: 4 }),
    rowDrift({ regions: 1, trainableAffected: 3, firstDivergenceIndex: 9 }),
    undefined,
  ];
  const cases: { name: string; query: RowQuery; want: number[] }[] = [
    { name: "any drift", query: { drift: "any" }, want: [1, 2] },
    { name: "no drift (unchecked rows excluded)", query: { drift: "none" }, want: [0] },
    { name: "drift on trained tokens", query: { drift: "trained" }, want: [2] },
    {
      name: "sort by drift: trained tokens first, then regions, unchecked last",
      query: { sort: "drift", descending: true },
      want: [2, 1, 0, 3],
    },
    { name: "sort by drift ascending", query: { sort: "drift" }, want: [0, 1, 2, 3] },
    {
      name: "drift filter with another filter",
      query: { drift: "any", status: ["completed"] },
      want: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(selectRows(rows, c.query, drift)).toEqual(c.want));
  }
  it("matches nothing before the file was checked", () => {
    expect(selectRows(rows, { drift: "any" })).toEqual([]);
  });
  it("orders by trained tokens before regions", () => {
    const many = rowDrift({ regions: 50, trainableAffected: 0, firstDivergenceIndex: 0 });
    const one = rowDrift({ regions: 1, trainableAffected: 1, firstDivergenceIndex: 0 });
    expect(driftRank(one)).toBeGreaterThan(driftRank(many));
  });
  it.each([
    ["any", "any"],
    ["none", "none"],
    ["trained", "trained"],
    ["bogus", undefined],
  ] as const)("reads drift=%s from the URL", (param, want) => {
    const query = queryFromParams((n) => (n === "drift" ? param : null));
    expect(query.drift).toBe(want);
    if (want) expect(queryToParams(query)).toEqual([["drift", want]]);
  });
});

function rowDrift(overrides: Partial<RowDrift>): RowDrift {
  return {
    regions: 0,
    trainableAffected: 0,
    firstDivergenceIndex: undefined,
    textEqual: true,
    classCounts: {},
    ...overrides,
  };
}

describe("turn range", () => {
  const turnRows = [row(0, { turns: 1 }), row(1, { turns: 3 }), row(2, { turns: 5 })];
  it.each([
    { query: { turnsMin: 2 }, want: [1, 2] },
    { query: { turnsMax: 3 }, want: [0, 1] },
    { query: { turnsMin: 3, turnsMax: 3 }, want: [1] },
  ])("$query", ({ query, want }) => expect(selectRows(turnRows, query)).toEqual(want));

  it("round-trips through the URL", () => {
    const params = new URLSearchParams(queryToParams({ turnsMin: 2, turnsMax: 4 }));
    expect(params.toString()).toBe("turnsMin=2&turnsMax=4");
    expect(queryFromParams((n) => params.get(n))).toMatchObject({ turnsMin: 2, turnsMax: 4 });
  });
});

describe("mismatch filter and column", () => {
  const m = (maxAbsDelta: number, compared = 5) => ({
    compared,
    maxAbsDelta,
    meanAbsDelta: maxAbsDelta / 2,
    fractionCorrected: 0,
  });
  // Row 0 small, row 1 large, row 2 no lanes, row 3 lanes but nothing compared.
  const mismatch = [m(0.01), m(1.2), undefined, m(0, 0)];
  const table = [0, 1, 2, 3].map((i) => row(i));

  it("keeps rows whose max |δ| exceeds x, and sorts by it with unchecked rows last", () => {
    expect(selectRows(table, { mismatchAbove: 0.005 }, [], mismatch)).toEqual([0, 1]);
    expect(selectRows(table, { mismatchAbove: 0.5 }, [], mismatch)).toEqual([1]);
    expect(selectRows(table, { mismatchAbove: 0.5 })).toEqual([]);
    expect(selectRows(table, { sort: "mismatch", descending: true }, [], mismatch)).toEqual([
      1, 0, 2, 3,
    ]);
  });

  it("reads mismatch=x from the URL", () => {
    const query = queryFromParams((n) => (n === "mismatch" ? "0.25" : null));
    expect(query.mismatchAbove).toBe(0.25);
    expect(queryToParams(query)).toEqual([["mismatch", "0.25"]]);
  });
});
