import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import type { Trajectory } from "../trajectory/types";
import { readRolloutLine } from "./readRolloutLine";
import type { FormatId, LineResult } from "./types";

function trajectoriesOf(result: LineResult): Trajectory[] {
  if (result.kind !== "trajectories")
    throw new Error(`expected trajectories, got ${JSON.stringify(result)}`);
  return result.trajectories;
}

describe("readRolloutLine on the reference examples", () => {
  const cases: { file: string; format: FormatId; rows: number; kinds: string }[] = [
    {
      file: "reference-slime.jsonl",
      format: "slime",
      rows: 1,
      kinds: "prompt:13 model:4 tool:12 model:4",
    },
    { file: "reference-atropos.jsonl", format: "atropos", rows: 2, kinds: "prompt:12 model:2" },
    {
      file: "reference-strands.jsonl",
      format: "strands",
      rows: 1,
      kinds: "prompt:13 model:4 tool:12 model:4",
    },
    { file: "reference-verl.jsonl", format: "verl", rows: 1, kinds: "" },
    {
      file: "reference-rollout-lens.jsonl",
      format: "rollout-lens/v1",
      rows: 1,
      kinds: "prompt:13 model:4 tool:12 model:4",
    },
  ];
  it.each(cases)("$file loads as $format", ({ file, format, rows, kinds }) => {
    const [line = ""] = fixtureLines(file);
    const result = readRolloutLine(line, 1);
    expect(result.kind === "trajectories" && result.format).toBe(format);
    const ts = trajectoriesOf(result);
    expect(ts).toHaveLength(rows);
    expect(ts[0]?.segments.map((s) => `${s.kind}:${s.tokenIds.length}`).join(" ")).toBe(kinds);
    expect(ts[0]?.source).toMatchObject({ kind: "file", line: 1, row: 0 });
  });

  it("maps slime response-only arrays after the prompt and 0.0 placeholders to null", () => {
    const [t] = trajectoriesOf(readRolloutLine(fixtureLines("reference-slime.jsonl")[0] ?? "", 1));
    const [prompt, model, tool] = t?.segments ?? [];
    expect(prompt?.logprobs.every((v) => v === null)).toBe(true);
    expect(model?.logprobs).toEqual([-0.31, -0.02, -0.004, -0.0006]);
    expect(tool?.logprobs.every((v) => v === null)).toBe(true);
    expect(t?.logprobPlaceholder).toBe(0);
    expect(t).toMatchObject({ reward: 1, status: "completed", group: "3" });
    expect(t?.metadata).toMatchObject({
      tool_iters: 1,
      session_id: "4b1e0c6a-0d8e-4c55-9a57-2f0f6f1d3e11",
    });
  });

  it("maps atropos -100 masks to 0 and 1.0 sentinels to null, one trajectory per row", () => {
    const ts = trajectoriesOf(readRolloutLine(fixtureLines("reference-atropos.jsonl")[0] ?? "", 7));
    expect(ts.map((t) => [t.id, t.group, t.source.row, t.reward])).toEqual([
      ["L7.0", "L7", 0, 1],
      ["L7.1", "L7", 1, -1],
    ]);
    expect(ts[1]?.segments[0]?.logprobs.every((v) => v === null)).toBe(true);
    expect(ts[1]?.segments[1]?.logprobs).toEqual([-3.2188, -0.0011]);
    expect(ts[1]?.messages?.[1]).toEqual({ role: "assistant", content: "5" });
  });

  it("keeps the verl text for a later tokenizer and no tokens", () => {
    const [t] = trajectoriesOf(readRolloutLine(fixtureLines("reference-verl.jsonl")[0] ?? "", 1));
    expect(t?.segments).toEqual([]);
    expect(t?.metadata).toMatchObject({
      input: "user\nWhat is 2+2?\nassistant\n",
      output: "4",
      step: 17,
      acc: true,
    });
  });
});

describe("readRolloutLine on real atropos data (trimmed rubiks groups)", () => {
  const lines = fixtureLines("atropos-rubiks-trimmed.jsonl");
  const results = lines.map((line, i) => trajectoriesOf(readRolloutLine(line, i + 1)));

  it("keeps the extra keys verbatim", () => {
    const meta = results[0]?.[0]?.metadata ?? {};
    expect(Object.keys(meta)).toEqual(
      expect.arrayContaining(["seed", "parsed_actions", "token_scores", "token_weights"]),
    );
    expect(meta.seed).toBe(263075);
    const lengths = results[0]?.map((t) => t.segments.reduce((n, s) => n + s.tokenIds.length, 0));
    expect(
      Array.isArray(meta.token_scores) &&
        meta.token_scores.map((r: unknown) => (Array.isArray(r) ? r.length : -1)),
    ).toEqual(lengths);
  });

  it("shows the zero-variance group in metadata", () => {
    expect(results.map((ts) => ts[0]?.metadata.group_summary)).toMatchObject([
      { size: 2, zero_variance: false },
      { size: 2, zero_variance: true, std: 0 },
    ]);
  });
});

describe("readRolloutLine errors", () => {
  const slime = JSON.parse(fixtureLines("reference-slime.jsonl")[0] ?? "{}");
  const atropos = JSON.parse(fixtureLines("reference-atropos.jsonl")[0] ?? "{}");
  const strands = JSON.parse(fixtureLines("reference-strands.jsonl")[0] ?? "{}");
  const cases: { name: string; line: string; hint?: FormatId; field?: string; message: RegExp }[] =
    [
      { name: "truncated JSON", line: '{"tokens":[1,2', message: /invalid JSON/ },
      { name: "not an object", line: "[1,2,3]", message: /JSON object/ },
      {
        name: "unknown keys only",
        line: '{"foo":1}',
        message: /unknown record format \(keys: foo\)/,
      },
      {
        name: "slime loss_mask shorter than response_length",
        line: JSON.stringify({ ...slime, loss_mask: slime.loss_mask.slice(1) }),
        field: "loss_mask",
        message: /19 entries but response_length has 20/,
      },
      {
        name: "slime mask value 2",
        line: JSON.stringify({ ...slime, loss_mask: [2, ...slime.loss_mask.slice(1)] }),
        field: "loss_mask[0]",
        message: /0 or 1/,
      },
      {
        name: "slime response_length beyond tokens",
        line: JSON.stringify({ ...slime, response_length: 99 }),
        field: "response_length",
        message: /exceeds the 33 tokens/,
      },
      {
        name: "atropos mask neither -100 nor the token id",
        line: JSON.stringify({
          ...atropos,
          masks: [atropos.masks[0], [...atropos.masks[1].slice(0, 13), 7]],
        }),
        field: "masks[1][13]",
        message: /is 7: neither -100 nor the token id 151645/,
      },
      {
        name: "atropos row length mismatch",
        line: JSON.stringify({
          ...atropos,
          inference_logprobs: [atropos.inference_logprobs[0], [-1]],
        }),
        field: "inference_logprobs[1]",
        message: /1 entries but tokens\[1\] has 14/,
      },
      {
        name: "strands segment_info not covering the tokens",
        line: JSON.stringify({
          ...strands,
          segment_info: [
            [false, 13],
            [true, 4],
          ],
        }),
        field: "segment_info",
        message: /sum to 17 but token_ids has 33/,
      },
      {
        name: "strands logprob > 0 on a model token (invariant)",
        line: JSON.stringify({
          ...strands,
          logprobs: strands.logprobs.map((v: number, k: number) => (k === 14 ? 1.0 : v)),
        }),
        // Named as the record names it, not as the trajectory model's segments[1].logprobs.
        field: "logprobs",
        message: /logprob 1 > 0 on a model token.* at token 14/,
      },
      {
        name: "slime rollout_log_probs > 0 on a model token: the field the file has",
        line: JSON.stringify({
          ...slime,
          rollout_log_probs: slime.rollout_log_probs.map((v: number, k: number) =>
            k === 1 ? 0.5 : v,
          ),
        }),
        field: "rollout_log_probs",
        message: /logprob 0.5 > 0 on a model token.* at token 14$/,
      },
      {
        name: "atropos inference_logprobs > 0 in row 1: the row's list",
        line: JSON.stringify({
          ...atropos,
          inference_logprobs: [
            atropos.inference_logprobs[0],
            atropos.inference_logprobs[1].map((v: number, k: number) => (k === 13 ? 0.5 : v)),
          ],
        }),
        field: "inference_logprobs[1]",
        message: /^row 1: logprob 0.5 > 0 on a model token/,
      },
      {
        name: "format hint disagreeing with the keys",
        line: JSON.stringify(slime),
        hint: "strands",
        message: /expected a strands record but the keys look like slime/,
      },
    ];
  it.each(cases)("$name", ({ line, hint, field, message }) => {
    const result = readRolloutLine(line, 5, hint);
    expect(result.kind).toBe("error");
    if (result.kind !== "error") return;
    expect(result.error.line).toBe(5);
    expect(result.error.field).toBe(field);
    expect(result.error.message).toMatch(message);
  });

  it("loads Python NaN values and treats blank lines as blank", () => {
    const withNaN = JSON.stringify({ ...slime, reward: 0.5 }).replace(
      '"reward":0.5',
      '"reward":NaN',
    );
    expect(trajectoriesOf(readRolloutLine(withNaN, 1))[0]?.reward).toBeNaN();
    expect(readRolloutLine("   ", 2)).toEqual({ kind: "blank" });
  });
});
