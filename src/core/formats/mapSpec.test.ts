import { describe, expect, it } from "vitest";
import {
  type ColumnMapping,
  formatMapSpec,
  mappedFieldName,
  parseMapSpec,
  suggestColumnMapping,
} from "./columnMapping";
import { readRolloutLine } from "./readRolloutLine";

const P = [151644, 872, 198, 16];
const R = [19, 151645];

function parsed(spec: string): ColumnMapping {
  const out = parseMapSpec(spec);
  if (!out.ok) throw new Error(out.message);
  return out.mapping;
}

function problem(spec: string): string {
  const out = parseMapSpec(spec);
  if (out.ok) throw new Error(`parsed: ${JSON.stringify(out.mapping)}`);
  return out.message;
}

describe("--map spec", () => {
  it("parses the split layout; logprobs and mask are per response token there", () => {
    expect(
      parsed("prompt=prompt_ids, response=completion_ids,logprobs=lp,mask=m,reward=score"),
    ).toEqual({
      layout: "split",
      promptTokenIds: "prompt_ids",
      responseTokenIds: "completion_ids",
      responseLogprobs: "lp",
      responseMask: "m",
      reward: "score",
    });
  });

  it("parses the full layout, a column name may hold '='", () => {
    expect(parsed("tokens=input_ids,mask=loss_mask,logprobs=a=b,prompt-length=n")).toEqual({
      layout: "full",
      tokenIds: "input_ids",
      lossMask: "loss_mask",
      logprobs: "a=b",
      promptLength: "n",
    });
  });

  it("says what is wrong: unknown key, missing ids, mixed layouts, repeats", () => {
    expect(problem("tokens=a,weights=w")).toMatch(/unknown key "weights" \(keys: tokens, prompt/);
    expect(problem("reward=r")).toMatch(
      /name the token ids: tokens=COL, or prompt=COL,response=COL/,
    );
    expect(problem("prompt=p")).toMatch(/"prompt" needs "response"/);
    expect(problem("response=r")).toMatch(/"response" needs "prompt"/);
    expect(problem("tokens=t,prompt=p,response=r")).toMatch(/cannot be mixed/);
    expect(problem("tokens=t,tokens=u")).toMatch(/"tokens" is given twice/);
    expect(problem("tokens=t,mask=t")).toMatch(/column "t" is mapped twice/);
    expect(problem("tokens")).toMatch(/"tokens" is not key=column/);
    expect(problem("tokens=")).toMatch(/"tokens" names no column/);
    expect(problem("prompt=p,response=r,prompt-length=n")).toMatch(/full layout/);
    expect(problem("")).toMatch(/name the token ids/);
  });

  it("formats a mapping as the spec that parses back to it", () => {
    const cases: ColumnMapping[] = [
      parsed("prompt=p,response=r,logprobs=l,mask=m,reward=s"),
      parsed("tokens=t,mask=m,logprobs=l,prompt-length=n,reward=s"),
      parsed("tokens=t"),
    ];
    for (const m of cases) expect(parsed(formatMapSpec(m))).toEqual(m);
  });
});

describe("a JSON line read through a column mapping", () => {
  const mapping = parsed("prompt=prompt_ids,response=completion_ids,logprobs=lp,reward=score");
  const line = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ prompt_ids: P, completion_ids: R, lp: [-0.5, -0.25], score: 1, ...over });

  it("without a mapping fails, suggesting the --map flag that reads it", () => {
    const result = readRolloutLine(line(), 1);
    expect(result).toMatchObject({ kind: "error", error: { line: 1 } });
    if (result.kind !== "error") return;
    expect(result.error.message).toContain(
      "its columns look like token ids: read it with --map prompt=prompt_ids,response=completion_ids,reward=score",
    );
    // Many keys, or long ones: the message stays short.
    const wide = Object.fromEntries(
      Array.from({ length: 12 }, (_, k) => [`${"k".repeat(k === 0 ? 5000 : 1)}${k}`, k]),
    );
    const many = readRolloutLine(JSON.stringify(wide), 1);
    expect(many.kind === "error" && many.error.message.length).toBeLessThan(300);
    expect(many.kind === "error" && many.error.message).toMatch(/k\.\.\., k1, .*k7, \.\.\.\)/);
    // Columns that look like nothing: no flag suggested.
    const plain = readRolloutLine(JSON.stringify({ text: "hi", score: 1 }), 2);
    expect(plain.kind === "error" && plain.error.message).toMatch(
      /^unknown record format \(keys: text, score\); see docs\/format.md/,
    );
  });

  it("reads the line as a slime sample through the mapping", () => {
    const result = readRolloutLine(line({ env: "math" }), 3, undefined, "x.jsonl", mapping);
    if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
    expect(result.format).toBe("slime");
    const t = result.trajectories[0];
    expect(t?.segments.map((s) => [s.kind, s.tokenIds])).toEqual([
      ["prompt", P],
      ["model", R],
    ]);
    expect(t?.segments[1]?.logprobs).toEqual([-0.5, -0.25]);
    expect(t?.reward).toBe(1);
    expect(t?.metadata.env).toBe("math");
  });

  it("names the record's own column in errors", () => {
    const err = (text: string, m: ColumnMapping = mapping) => {
      const r = readRolloutLine(text, 3, undefined, undefined, m);
      return r.kind === "error" ? r.error : r;
    };
    expect(err(line({ completion_ids: undefined }))).toEqual({
      line: 3,
      field: "completion_ids",
      message: "missing: the column mapping reads this column",
    });
    expect(err(line({ completion_ids: [19, -4] }))).toMatchObject({
      field: "completion_ids[1]",
      message: "expected a token id (an integer >= 0), got -4",
    });
    // A huge value is shown cut, never whole.
    const huge = err(line({ completion_ids: [19, "y".repeat(100_000)] }));
    expect(huge).toMatchObject({
      message: `expected a token id (an integer >= 0), got the string "${"y".repeat(40)}..."`,
    });
    expect(err(line({ prompt_ids: "abc" }))).toMatchObject({
      field: "prompt_ids",
      message: expect.stringMatching(/expected a list of token ids, got the string "abc"/),
    });
    expect(err(line({ lp: [-0.5] }))).toMatchObject({
      field: "lp",
      message:
        "1 values for the 2 response tokens of completion_ids: expected one per response token",
    });
    expect(err(line({ lp: [-0.5, "x"] }))).toMatchObject({ field: "lp[1]" });
    const full = parsed("tokens=ids,mask=m");
    expect(err(JSON.stringify({ ids: [1, 2, 3], m: [0, 1, 7] }), full)).toMatchObject({
      field: "m[2]",
    });
    expect(err(JSON.stringify({ ids: [1, 2, 3], m: [0, 1, 1] }), full).toString()).not.toMatch(
      /error/,
    );
    expect(err(line(), mapping)).toHaveProperty("kind", "trajectories");
    const forced = readRolloutLine(line(), 1, "atropos", undefined, mapping);
    expect(forced.kind === "error" && forced.error.message).toMatch(
      /as slime samples, not as atropos/,
    );
  });

  it("the suggestion read through the mapping it names reads the line", () => {
    const keys = Object.keys(JSON.parse(line()));
    const suggested = suggestColumnMapping(keys);
    if (!suggested) throw new Error("no suggestion");
    expect(readRolloutLine(line(), 1, undefined, undefined, suggested).kind).toBe("trajectories");
  });
});

describe("mappedFieldName", () => {
  it("puts a Sample field's index back into the row's own column", () => {
    const split = parsed("prompt=p,response=r,logprobs=l,mask=m");
    const sample = { tokens: [1, 2, 3, 4, 5], response_length: 2 };
    expect(mappedFieldName(split, "tokens[1]", sample)).toBe("p[1]");
    expect(mappedFieldName(split, "tokens[4]", sample)).toBe("r[1]");
    expect(mappedFieldName(split, "loss_mask[1]", sample)).toBe("m[1]");
    expect(mappedFieldName(split, "rollout_log_probs", sample)).toBe("l");
    expect(mappedFieldName(split, "metadata.x", sample)).toBe("metadata.x");
    const full = parsed("tokens=t,mask=m,logprobs=l");
    expect(mappedFieldName(full, "loss_mask[1]", sample)).toBe("m[4]");
    expect(mappedFieldName(full, "rollout_log_probs.0", sample)).toBe("l[3]");
    expect(mappedFieldName(full, "tokens[2]", sample)).toBe("t[2]");
  });
});
