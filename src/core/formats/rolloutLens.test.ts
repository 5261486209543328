import { describe, expect, it } from "vitest";
import { generateLine } from "../../test/rolloutFileGenerator";
import { readRolloutLine } from "./readRolloutLine";
import { writeRolloutLens } from "./rolloutLens";

// generateLine(0, 10 tokens): prompt [0,2), model [2,5), tool [5,7), model [7,10).
interface Arrays {
  token_ids: unknown[];
  loss_mask: unknown[];
  logprobs: unknown[];
}
const base = (): Arrays => JSON.parse(generateLine(0, { tokens: 10 }));

// The same arrays as a bare strands Rollout: drop the rollout-lens keys, keep segment_info.
// (`as`: the parsed line has those extra keys; Arrays names only the ones the edits touch.)
const asStrands = (l: Arrays) => {
  const {
    format: _f,
    segments: _s,
    id: _i,
    status: _st,
    group: _g,
    ...rest
  } = l as Arrays & Record<string, unknown>;
  return rest;
};

describe.each([
  { format: "rollout-lens/v1", shape: (l: Arrays): unknown => l },
  { format: "strands", shape: asStrands },
])("$format fused fast path falls back to the exact verdicts", ({ format, shape }) => {
  it.each([
    { name: "valid line", edit: () => {}, field: undefined, message: undefined },
    { name: "negative id", edit: (l) => (l.token_ids[3] = -1), field: "token_ids[3]", message: "" },
    { name: "float id", edit: (l) => (l.token_ids[0] = 1.5), field: "token_ids[0]", message: "" },
    { name: "mask 2", edit: (l) => (l.loss_mask[4] = 2), field: "loss_mask[4]", message: "0 or 1" },
    {
      name: "mask 0 on a model token",
      edit: (l) => (l.loss_mask[3] = 0),
      field: "loss_mask",
      message: "at token 3",
    },
    {
      name: "string logprob",
      edit: (l) => (l.logprobs[1] = "x"),
      field: "logprobs[1]",
      message: "",
    },
    {
      name: "positive model logprob",
      edit: (l) => (l.logprobs[8] = 0.5),
      field: "logprobs",
      message: "at token 8",
    },
    {
      name: "positive prompt logprob",
      edit: (l) => (l.logprobs[0] = 0.5),
      field: undefined,
      message: undefined,
    },
    { name: "short mask", edit: (l) => l.loss_mask.pop(), field: "loss_mask", message: "" },
  ] satisfies {
    name: string;
    edit: (l: Arrays) => unknown;
    field: string | undefined;
    message: string | undefined;
  }[])("$name", ({ edit, field, message }) => {
    const line = base();
    edit(line);
    const result = readRolloutLine(JSON.stringify(shape(line)), 4);
    if (field === undefined) {
      expect(result.kind === "trajectories" && result.format).toBe(format);
      return;
    }
    expect(result.kind === "error" && result.error.field).toBe(field);
    expect(result.kind === "error" && result.error.message).toContain(message);
  });
});

describe("rollout-lens/v1 end reason", () => {
  const read = (line: Record<string, unknown>) => {
    const result = readRolloutLine(JSON.stringify({ ...base(), ...line }), 1);
    if (result.kind !== "trajectories") throw new Error(`not read: ${JSON.stringify(result)}`);
    const [t] = result.trajectories;
    if (!t) throw new Error("no trajectory");
    return t;
  };

  it("reads end_reason and writes it back under the same name", () => {
    const t = read({ status: "truncated", end_reason: "cut", metadata: { note: 1 } });
    expect(t.endReason).toBe("cut");
    expect(t.metadata).toEqual({ note: 1 });
    const line = writeRolloutLens(t);
    expect(line.end_reason).toBe("cut");
    expect(line.metadata).toEqual({ note: 1 });
  });

  it.each([
    ["end_reason", "upstream failure: down"],
    ["abort_reason", "server stopped while the episode ran"],
  ])("still reads older lines that kept it in metadata.%s, moving it out", (key, reason) => {
    const t = read({ status: "aborted", metadata: { [key]: reason, note: 1 } });
    expect(t.endReason).toBe(reason);
    expect(t.metadata).toEqual({ note: 1 });
    const line = writeRolloutLens(t);
    expect(line.end_reason).toBe(reason);
    expect(line.metadata).toEqual({ note: 1 });
  });

  it("keeps a metadata key that is not a string, and a line without a reason has none", () => {
    const t = read({ status: "aborted", metadata: { abort_reason: 3 } });
    expect(t.endReason).toBeUndefined();
    expect(t.metadata).toEqual({ abort_reason: 3 });
    expect(writeRolloutLens(read({})).end_reason).toBeUndefined();
  });
});

describe("rollout-lens/v1 lineage", () => {
  const read = (line: Record<string, unknown>) =>
    readRolloutLine(JSON.stringify({ ...base(), ...line }), 1);

  it("reads parent_id, fork_index, fork_edit and edited segments, and writes them back", () => {
    const line = base() as Arrays & { segments: Record<string, unknown>[] };
    const segments = line.segments.map((s, i) => (i === 2 ? { ...s, edited: true } : s));
    const result = read({
      segments,
      parent_id: "ep_parent",
      fork_index: 5,
      fork_edit: { tool_results: ["106"] },
    });
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    const [t] = result.trajectories;
    expect(t?.lineage).toEqual({ parentId: "ep_parent", forkIndex: 5, editedToolResults: ["106"] });
    expect(t?.segments[2]?.edited).toBe(true);
    expect(t?.segments[1]?.edited).toBeUndefined();
    if (!t) return;
    const written = writeRolloutLens(t);
    expect(written).toMatchObject({
      parent_id: "ep_parent",
      fork_index: 5,
      fork_edit: { tool_results: ["106"] },
    });
    expect(written.segments[2]?.edited).toBe(true);
    expect(writeRolloutLens({ ...t, lineage: undefined }).parent_id).toBeUndefined();
  });

  it.each([
    [{ parent_id: "p" }, "fork_index", "is missing while parent_id is set"],
    [{ fork_index: 2 }, "parent_id", "is missing while fork_index is set"],
    [{ parent_id: "p", fork_index: 11 }, "fork_index", "is 11 but token_ids has 10"],
  ])("refuses a half or impossible lineage %j", (extra, field, message) => {
    const result = read(extra);
    expect(result.kind === "error" && result.error.field).toBe(field);
    expect(result.kind === "error" && result.error.message).toContain(message);
  });
});

describe("rollout-lens/v1 kept sets", () => {
  const read = (segments: Record<string, unknown>[]) =>
    readRolloutLine(JSON.stringify({ ...base(), segments }), 2);
  // Model segment 1 covers tokens [2, 5).
  const withKept = (kept: unknown) =>
    (base() as Arrays & { segments: Record<string, unknown>[] }).segments.map((s, i) =>
      i === 1 ? { ...s, kept_token_ids: kept } : s,
    );

  it("reads a model segment's kept_token_ids and writes them back", () => {
    const result = read(withKept([[4, 9], null, [7]]));
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    const [t] = result.trajectories;
    if (!t) throw new Error("no trajectory");
    expect(t.segments[1]?.keptTokenIds).toEqual([[4, 9], null, [7]]);
    expect(t.segments[3]?.keptTokenIds).toBeUndefined();
    expect(writeRolloutLens(t).segments[1]?.kept_token_ids).toEqual([[4, 9], null, [7]]);
    expect(writeRolloutLens(t).segments[3]).not.toHaveProperty("kept_token_ids");
  });

  it("refuses kept_token_ids of another length than the segment, naming the field", () => {
    const result = read(withKept([[4], [5]]));
    expect(result.kind === "error" && result.error.field).toBe("segments[1].kept_token_ids");
  });
});
