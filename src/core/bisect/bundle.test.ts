import { describe, expect, it } from "vitest";
import { type BisectBundle, parseBundle } from "./bundle";
import { bisectTable, tableDifferences } from "./table";

const setting = { temperature: 0.7, cotenants: 0, mode: "prefill", upstream: "a" } as const;

function bundle(): BisectBundle {
  return {
    format: "rollout-lens/bisect-bundle",
    version: 1,
    created_at: "2026-11-26T19:00:00.000Z",
    source: { file: "run.jsonl", row: 0 },
    ids: [10, 11, 12, 13],
    mask: [0, 0, 1, 1],
    sampling_params: { temperature: 0.7 },
    baseline: { name: "sampled", lane: [null, null, -1, -2] },
    options: { batch_size: 8, top_logprobs: 20, decode_max_tokens: 256 },
    knobs: [
      {
        knob: "reference",
        status: "ran",
        change: "prefill",
        setting,
        upstream: "http://a",
        lane: [null, -0.5, -1, -2],
        notes: [],
      },
      {
        knob: "temperature",
        status: "ran",
        change: "T = 1",
        setting: { ...setting, temperature: 1 },
        upstream: "http://a",
        lane: [null, -0.3, -0.7, -2.5],
        notes: [],
      },
      {
        knob: "upstream",
        status: "unchecked",
        reason:
          "no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B",
      },
    ],
    server: { url: "http://a", model_info: { model_path: "m" }, server_info: null },
    tokenizer: { name: "qwen3", sha256: "a".repeat(64) },
  };
}

describe("parseBundle", () => {
  it("reads a bundle back as written", () => {
    const b = bundle();
    expect(parseBundle(JSON.stringify(b), "b.json")).toEqual({ ok: true, bundle: b });
  });

  it.each([
    ["not JSON", (t: string) => t.slice(0, 20), /^b\.json: not JSON: /],
    ["another format", (t: string) => t.replace("bisect-bundle", "v1"), /^b\.json: format: /],
    [
      "a positive logprob",
      (t: string) => t.replace("-2.5", "2.5"),
      /^b\.json: knobs\[1\]\.lane\[3\]: a logprob must be ≤ 0/,
    ],
    [
      "an unknown knob",
      (t: string) => t.replace('"upstream","status"', '"tp","status"'),
      /^b\.json: knobs\[2\]\.knob: /,
    ],
    [
      "a short mask",
      (t: string) => t.replace("[0,0,1,1]", "[0,1,1]"),
      /^b\.json: mask: has 3 entries but ids has 4$/,
    ],
    [
      "a short lane",
      (t: string) => t.replace("[null,-0.3,-0.7,-2.5]", "[null,-0.3]"),
      /^b\.json: knobs\[1\]\.lane: has 2 entries but ids has 4$/,
    ],
    [
      "a bad tokenizer hash",
      (t: string) => t.replace("a".repeat(64), "xyz"),
      /^b\.json: tokenizer/,
    ],
    [
      "no trained token",
      (t: string) => t.replace("[0,0,1,1]", "[0,0,0,0]"),
      /^b\.json: mask: marks no trained token/,
    ],
  ])("names the field of %s", (_, edit, error) => {
    const parsed = parseBundle(edit(JSON.stringify(bundle())), "b.json");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });
});

describe("bisectTable", () => {
  it("compares each knob's lane with the baseline over trained tokens, by hand", () => {
    const rows = bisectTable(bundle());
    expect(rows[0]).toMatchObject({
      knob: "reference",
      status: "ran",
      stats: { meanAbsDelta: 0, outside: 0 },
    });
    // δ = −0.7 − (−1) = 0.3 and −2.5 − (−2) = −0.5; r = 1.3499, 0.6065: both outside.
    const t = rows[1];
    expect(t?.status).toBe("ran");
    if (t?.status === "ran") {
      expect(t.stats.meanAbsDelta).toBeCloseTo(0.4, 12);
      expect(t.stats.maxAbsDelta).toBeCloseTo(0.5, 12);
      expect(t.stats.maxAt).toBe(3);
      // k3: e^0.3 − 1.3 = 0.04985880757600310, e^−0.5 − 0.5 = 0.10653065971263342.
      expect(t.stats.k3).toBeCloseTo((0.0498588075760031 + 0.10653065971263342) / 2, 12);
      expect(t.stats.fractionOutside).toBe(1);
    }
    expect(rows[2]).toEqual({
      knob: "upstream",
      status: "unchecked",
      reason:
        "no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B",
    });
  });

  it("marks the reference row as the baseline when it is one (its δ of 0 is no result)", () => {
    const sampled = bisectTable(bundle());
    expect(sampled[0]).not.toHaveProperty("isBaseline");
    const b = bundle();
    const reference = b.knobs[0];
    if (reference?.status !== "ran") throw new Error("the fixture's reference ran");
    const rows = bisectTable({ ...b, baseline: { name: "reference", lane: reference.lane } });
    expect(rows[0]).toMatchObject({ knob: "reference", status: "ran", isBaseline: true });
    expect(rows[1]).not.toHaveProperty("isBaseline");
  });

  it("finds where a rerun's table differs from the recorded one", () => {
    const recorded = bisectTable(bundle());
    expect(tableDifferences(recorded, bisectTable(bundle()))).toEqual([]);
    const other = bundle();
    const k = other.knobs[1];
    if (k?.status === "ran") k.lane[2] = -0.8;
    const diffs = tableDifferences(recorded, bisectTable(other));
    expect(diffs[0]).toMatch(/^temperature: meanAbsDelta 0\.4\d* in the bundle, 0\.35\d* now$/);
    expect(tableDifferences(recorded, recorded.slice(0, 2))).toEqual([
      "upstream: not in the rerun",
    ]);
  });
});
