import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { readRolloutLine } from "./readRolloutLine";

const rl = JSON.parse(fixtureLines("reference-rollout-lens.jsonl")[0] ?? "{}");
const strands = JSON.parse(fixtureLines("reference-strands.jsonl")[0] ?? "{}");
const slime = JSON.parse(fixtureLines("reference-slime.jsonl")[0] ?? "{}");

function errorOf(value: unknown): { field?: string; message: string } | undefined {
  const result = readRolloutLine(JSON.stringify(value), 1);
  return result.kind === "error"
    ? { field: result.error.field, message: result.error.message }
    : undefined;
}

describe("rollout-lens/v1 reader rejects inconsistent lines", () => {
  const segments = rl.segments;
  const cases: { name: string; value: unknown; field?: string; message: RegExp }[] = [
    {
      name: "missing id",
      value: { ...rl, id: undefined },
      field: "id",
      message: /expected string/,
    },
    { name: "bad status", value: { ...rl, status: "done" }, field: "status", message: /running/ },
    {
      name: "logprobs too short",
      value: { ...rl, logprobs: rl.logprobs.slice(1) },
      field: "logprobs",
      message: /32 entries but token_ids has 33/,
    },
    {
      name: "segment_info disagrees with segments",
      value: {
        ...rl,
        segment_info: [
          [false, 13],
          [false, 4],
          [false, 12],
          [true, 4],
        ],
      },
      field: "segment_info[1]",
      message: /disagrees with segments\[1\] \(model, 4 tokens\)/,
    },
    {
      name: "segments with a gap",
      value: {
        ...rl,
        segments: [segments[0], { ...segments[1], start: 14 }, segments[2], segments[3]],
      },
      field: "segments[1]",
      message: /must start at 13/,
    },
    {
      name: "segments not covering the tokens",
      value: { ...rl, segments: segments.slice(0, 3), segment_info: rl.segment_info.slice(0, 3) },
      field: "segments",
      message: /cover 29 tokens but token_ids has 33/,
    },
    {
      name: "a call that matches no model segment",
      value: { ...rl, calls: [{ ...rl.calls[0], input_len: 12 }] },
      field: "calls[0]",
      message: /no model segment starts at input_len 12/,
    },
  ];
  it.each(cases)("$name", ({ value, field, message }) => {
    const error = errorOf(value);
    expect(error?.field).toBe(field);
    expect(error?.message).toMatch(message);
  });
});

describe("status mapping", () => {
  const finish = (type: string) => ({ ...strands.calls[1], finish_reason: { type } });
  const cases: { name: string; value: unknown; status: string }[] = [
    { name: "strands end_turn", value: strands, status: "completed" },
    {
      name: "strands limiter cut (tool_use)",
      value: { ...strands, stop_reason: "tool_use" },
      status: "truncated",
    },
    {
      name: "strands max_tokens",
      value: { ...strands, stop_reason: "max_tokens" },
      status: "truncated",
    },
    {
      name: "strands last call length",
      value: { ...strands, calls: [strands.calls[0], finish("length")] },
      status: "truncated",
    },
    {
      name: "strands last call abort",
      value: { ...strands, calls: [strands.calls[0], finish("abort")] },
      status: "aborted",
    },
    { name: "slime pending", value: { ...slime, status: "pending" }, status: "running" },
    { name: "slime failed", value: { ...slime, status: "failed" }, status: "aborted" },
    { name: "slime truncated", value: { ...slime, status: "truncated" }, status: "truncated" },
  ];
  it.each(cases)("$name -> $status", ({ value, status }) => {
    const result = readRolloutLine(JSON.stringify(value), 1);
    expect(result.kind === "trajectories" && result.trajectories[0]?.status).toBe(status);
  });
});

describe("slime dump wrapper", () => {
  it("reads one trajectory per sample and names the failing sample", () => {
    const ok = readRolloutLine(JSON.stringify({ rollout_id: 4, samples: [slime, slime] }), 2);
    expect(ok.kind === "trajectories" && ok.trajectories.map((t) => [t.id, t.source.row])).toEqual([
      ["L2.0", 0],
      ["L2.1", 1],
    ]);
    const bad = errorOf({ rollout_id: 4, samples: [slime, { ...slime, response_length: -1 }] });
    expect(bad?.field).toBe("samples[1].response_length");
  });
});
