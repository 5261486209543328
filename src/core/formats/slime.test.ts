import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkTrajectory, type ProvenFacts } from "../trajectory/invariants";
import { readRolloutLine } from "./readRolloutLine";
import { readSlimeSample, readSlimeSampleExact } from "./slime";
import type { ReadResult } from "./types";

const NOTHING_PROVEN: ProvenFacts = {};

/** What a reader's result means to a user: its error, or its trajectories and their violations. */
function verdict(result: ReadResult, proven?: ProvenFacts) {
  if (!result.ok) return { error: result.error };
  return {
    trajectories: result.trajectories,
    violations: result.trajectories.map((t) => checkTrajectory(t, proven ?? result.proven)),
  };
}

// Values JSON lines (and Python's NaN/Infinity) can hold where a per-token entry should be.
const oddValue = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 2, 0.5, -100, Number.NaN, Infinity, -Infinity, null, "1", true),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 1, 2 ** 60, -(2 ** 60)),
  fc.double(),
  fc.constant([1]),
);

const tokenId = fc.integer({ min: 0, max: 200_000 });
const responseToken = fc.record({
  id: tokenId,
  mask: fc.constantFrom<0 | 1>(0, 1),
  lp: fc.double({ min: -20, max: 0, noNaN: true }),
});

/** A well-formed slime Sample: prompt tokens, then response arrays (mask-0 logprobs as slime writes them). */
const validSample = fc
  .record({
    prompt: fc.array(tokenId, { maxLength: 4 }),
    response: fc.array(responseToken, { maxLength: 12 }),
    // slime writes 0.0 at mask 0; strands-via-slime real scores; some writers null.
    toolLogprobs: fc.constantFrom("zero", "real", "null"),
    hasMask: fc.boolean(),
    hasLogprobs: fc.boolean(),
    status: fc.constantFrom(undefined, "completed", "truncated", "failed"),
    reward: fc.constantFrom(undefined, null, 1, 0.25, { acc: 1 }),
  })
  .map((g) => {
    const sample: Record<string, unknown> = {
      tokens: [...g.prompt, ...g.response.map((t) => t.id)],
      response_length: g.response.length,
      loss_mask: g.hasMask ? g.response.map((t) => t.mask) : null,
      rollout_log_probs: g.hasLogprobs
        ? g.response.map((t) =>
            t.mask === 1 || !g.hasMask || g.toolLogprobs === "real"
              ? t.lp
              : g.toolLogprobs === "zero"
                ? 0
                : null,
          )
        : null,
      group_index: 3,
    };
    if (g.status !== undefined) sample.status = g.status;
    if (g.reward !== undefined) sample.reward = g.reward;
    return sample;
  });

type Edit = (s: Record<string, unknown>) => void;

function arrayAt(s: Record<string, unknown>, key: string): unknown[] | undefined {
  const value = s[key];
  return Array.isArray(value) ? value : undefined;
}

const perTokenKey = fc.constantFrom("tokens", "loss_mask", "rollout_log_probs");

/** One way a sample goes wrong, or stays right (about a third of the runs). */
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant((): void => {}),
  fc.record({ key: perTokenKey, at: fc.nat(), value: oddValue }).map(
    ({ key, at, value }): Edit =>
      (s) => {
        const a = arrayAt(s, key);
        if (a && a.length > 0) a[at % a.length] = value;
      },
  ),
  fc.record({ at: fc.nat(), value: fc.double({ min: 0, max: 5, noNaN: true }) }).map(
    ({ at, value }): Edit =>
      (s) => {
        const a = arrayAt(s, "rollout_log_probs");
        if (a && a.length > 0) a[at % a.length] = value;
      },
  ),
  fc.record({ key: perTokenKey, grow: fc.boolean() }).map(
    ({ key, grow }): Edit =>
      (s) => {
        const a = arrayAt(s, key);
        if (grow) a?.push(0);
        else a?.pop();
      },
  ),
  fc
    .record({
      key: fc.constantFrom(...["response_length", "tokens", "loss_mask"]),
      value: oddValue,
    })
    .map(
      ({ key, value }): Edit =>
        (s) => {
          s[key] = value;
        },
    ),
  fc.integer({ min: -2, max: 2 }).map(
    (delta): Edit =>
      (s) => {
        if (typeof s.response_length === "number") s.response_length += delta;
      },
  ),
  fc.constantFrom<Edit>(
    (s) => {
      s.loss_mask = undefined;
    },
    (s) => {
      delete s.rollout_log_probs;
    },
    (s) => {
      s.status = 7;
    },
  ),
);

describe("slime fused fast path agrees with the exact path", () => {
  it("gives the same trajectories, errors and invariant violations on valid and broken samples", () => {
    fc.assert(
      fc.property(
        validSample,
        fc.array(edit, { maxLength: 2 }),
        fc.constantFrom("", "samples[2]"),
        (sample, edits, prefix) => {
          for (const e of edits) e(sample);
          const row = prefix === "" ? 0 : 2;
          const fast = readSlimeSample(sample, { line: 5 }, row, prefix);
          const exact = readSlimeSampleExact(sample, { line: 5 }, row, prefix);
          // The oracle checks every invariant rule itself, trusting nothing either reader proved.
          const expected = verdict(exact, NOTHING_PROVEN);
          expect(verdict(fast)).toEqual(expected);
          // The fast path is taken exactly when it may be: a clean sample claims every fact.
          const isClean = exact.ok && expected.violations?.every((v) => v.length === 0);
          if (isClean) expect(fast.ok && fast.proven?.modelLogprobs).toBe(true);
          if (fast.ok && fast.proven?.modelLogprobs) expect(exact.ok).toBe(true);
          // 0.0 placeholders: some response token is a tool token (mask 0) and every tool token's
          // logprob is exactly 0. Where two 0.0 stand in a row at mask 0 (slime's placeholders),
          // a mask-0 token with a sampled logprob (< 0) is the model's, not trained: not a tool's.
          const { loss_mask: mask, rollout_log_probs: lps } = sample;
          const isPlaceholder =
            Array.isArray(mask) && Array.isArray(lps) && placeholderOracle(mask, lps);
          if (exact.ok) {
            expect(exact.trajectories[0]?.logprobPlaceholder).toBe(isPlaceholder ? 0 : undefined);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("slime fast path falls back to the exact errors", () => {
  // prompt [0,2), response: model [2,4), tool [4,6) with 0.0 placeholders, model [6,8).
  interface Sample {
    tokens: unknown[];
    response_length: unknown;
    loss_mask: unknown[];
    rollout_log_probs: unknown[];
    status: string;
  }
  const base = (): Sample => ({
    tokens: [10, 11, 20, 21, 30, 31, 40, 41],
    response_length: 6,
    loss_mask: [1, 1, 0, 0, 1, 1],
    rollout_log_probs: [-0.5, -0.25, 0, 0, -1, -2],
    status: "completed",
  });
  it.each([
    { name: "valid sample", edit: () => {}, field: undefined, message: undefined },
    {
      name: "negative id in the prompt",
      edit: (s) => (s.tokens[1] = -1),
      field: "tokens[1]",
      message: "",
    },
    { name: "float id", edit: (s) => (s.tokens[5] = 1.5), field: "tokens[5]", message: "" },
    {
      name: "mask 2",
      edit: (s) => (s.loss_mask[3] = 2),
      field: "loss_mask[3]",
      message: "0 or 1",
    },
    {
      name: "string logprob",
      edit: (s) => (s.rollout_log_probs[2] = "x"),
      field: "rollout_log_probs[2]",
      message: "",
    },
    {
      name: "positive model logprob",
      edit: (s) => (s.rollout_log_probs[5] = 0.5),
      field: "rollout_log_probs",
      message: "at token 7",
    },
    {
      name: "positive tool logprob (not a model token)",
      edit: (s) => (s.rollout_log_probs[3] = 0.5),
      field: undefined,
      message: undefined,
    },
    {
      name: "response_length beyond tokens",
      edit: (s) => (s.response_length = 9),
      field: "response_length",
      message: "9 exceeds the 8 tokens",
    },
    {
      name: "short mask",
      edit: (s) => s.loss_mask.pop(),
      field: "loss_mask",
      message: "5 entries but response_length has 6",
    },
    {
      name: "long logprobs",
      edit: (s) => s.rollout_log_probs.push(-1),
      field: "rollout_log_probs",
      message: "7 entries but response_length has 6",
    },
    {
      name: "no prompt",
      edit: (s) => (s.response_length = 8),
      field: "loss_mask",
      message: "6 entries but response_length has 8",
    },
  ] satisfies {
    name: string;
    edit: (s: Sample) => unknown;
    field: string | undefined;
    message: string | undefined;
  }[])("$name", ({ edit: change, field, message }) => {
    const sample: Sample = base();
    change(sample);
    for (const line of [sample, { rollout_id: 4, samples: [base(), sample] }]) {
      const result = readRolloutLine(JSON.stringify(line), 4);
      if (field === undefined) {
        expect(result.kind === "trajectories" && result.format).toBe("slime");
        continue;
      }
      // Every error names the field the file has, the sample's own inside a dump.
      const at = "samples" in line ? `samples[1].${field}` : field;
      expect(result.kind === "error" && result.error.field).toBe(at);
      expect(result.kind === "error" && result.error.message).toContain(message);
    }
  });

  it("keeps 0.0 tool placeholders as null logprobs, remembered for the write-back", () => {
    const result = readSlimeSample(base(), { line: 1 });
    const t = result.ok ? result.trajectories[0] : undefined;
    expect(result.ok && result.proven?.modelLogprobs).toBe(true);
    expect(t?.logprobPlaceholder).toBe(0);
    expect(t?.segments.map((s) => [s.kind, s.logprobs])).toEqual([
      ["prompt", [null, null]],
      ["model", [-0.5, -0.25]],
      ["tool", [null, null]],
      ["model", [-1, -2]],
    ]);
  });

  it("reads a mask with a run per token on the exact path (no call with a spread per run)", () => {
    const r = 300_000;
    const mask = Array.from({ length: r }, (_, k) => k % 2);
    const logprobs = mask.map((m): number => (m === 1 ? -0.5 : 0));
    logprobs[1] = 0.5; // a positive model logprob: the fast path declines, the exact path reads
    const line = { tokens: [1, ...mask.map(() => 7)], response_length: r, loss_mask: mask };
    const result = readRolloutLine(JSON.stringify({ ...line, rollout_log_probs: logprobs }), 3);
    expect(result.kind === "error" && result.error.field).toBe("rollout_log_probs");
    expect(result.kind === "error" && result.error.message).toContain("at token 2");
  });
});

describe("mask-0 response runs the model produced", () => {
  // prompt 2, model 2 (demoted: mask 0, real logprobs), tool 2 (mask 0, slime's 0.0), model 2.
  const sample = {
    tokens: [1, 2, 3, 4, 5, 6, 7, 8],
    response_length: 6,
    loss_mask: [0, 0, 0, 0, 1, 1],
    rollout_log_probs: [-0.5, -0.25, 0, 0, -0.1, -0.2],
  };
  const kinds = (value: Record<string, unknown>) => {
    const result = readSlimeSample(value, { line: 1 });
    if (!result.ok) throw new Error(result.error.message);
    return result.trajectories[0]?.segments.map((s) => [
      s.kind,
      s.untrained === true,
      s.lossMask.join(""),
    ]);
  };

  it("is a model segment marked untrained, never a tool segment, when tool runs carry slime's 0.0", () => {
    expect(kinds(sample)).toEqual(
      [
        ["prompt", false, "00"],
        ["model", false, "11"],
        ["model", true, "00"],
        ["tool", false, "00"],
        ["model", false, "11"],
      ].filter((_, k) => k !== 1),
    );
  });

  it("stays a tool run where the record cannot tell (no placeholder run to compare with)", () => {
    const strands = { ...sample, rollout_log_probs: [-0.5, -0.25, -1, -2, -0.1, -0.2] };
    expect(kinds(strands)?.map(([kind]) => kind)).toEqual(["prompt", "tool", "model"]);
  });
});

/** Whether slime's 0.0 placeholder is read, from the definition (docs/format.md). */
function placeholderOracle(mask: readonly unknown[], lps: readonly unknown[]): boolean {
  const zeroRun = mask.some(
    (m, k) => m === 0 && mask[k + 1] === 0 && lps[k] === 0 && lps[k + 1] === 0,
  );
  const lp = (k: number) => lps[k];
  const isTool = (k: number) => {
    const v = lp(k);
    return mask[k] === 0 && !(zeroRun && typeof v === "number" && v < 0);
  };
  const tools = mask.map((_, k) => k).filter(isTool);
  return tools.length > 0 && tools.every((k) => lp(k) === 0);
}
