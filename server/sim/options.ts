import { z } from "zod";
import { POLICY_NAMES, SIM_DEFAULTS } from "./defaults";

export { POLICY_NAMES };

export const policyNameSchema = z.enum(POLICY_NAMES);
export type PolicyName = z.infer<typeof policyNameSchema>;

const rate = z.number().min(0).max(1).default(0);

/** Fault rates are per `/generate` call, drawn from one seeded stream in arrival order. */
export const faultOptionsSchema = z
  .object({
    /** 503 with the spec's ErrorResponse body (overload). */
    rate503: rate,
    /** 500 with the spec's ErrorResponse body (internal failure). */
    rate500: rate,
    /** The socket is destroyed without any response. */
    rateDrop: rate,
    /** No response until the client gives up (aborts or disconnects). */
    rateStall: rate,
    /** 200 with a truncated, unparsable JSON body (or SSE event). */
    rateMalformed: rate,
    /** 200 with the spec's "Abort before prefill" body. */
    rateAbortBeforePrefill: rate,
    seed: z.number().int().default(SIM_DEFAULTS.faultSeed),
  })
  .refine(
    (f) =>
      f.rate503 +
        f.rate500 +
        f.rateDrop +
        f.rateStall +
        f.rateMalformed +
        f.rateAbortBeforePrefill <=
      1,
    { message: "fault rates must add up to at most 1" },
  );

export type FaultOptions = z.infer<typeof faultOptionsSchema>;

export const simOptionsSchema = z
  .object({
    policy: policyNameSchema.default(SIM_DEFAULTS.policy),
    /** Short name (`qwen3`, `llama3`) or a local model folder, as `loadTokenizer` takes it. */
    tokenizer: z.string().min(1).default(SIM_DEFAULTS.tokenizer),
    /**
     * Each /generate request is served by the installed family its first ids belong to (loaded on
     * first use), `tokenizer` only when none matches; false: `tokenizer` serves every request.
     */
    isTokenizerPerRequest: z.boolean().default(false),
    /** Context window in tokens, reported as `max_model_len` / `context_length`. */
    contextLength: z.number().int().positive().default(SIM_DEFAULTS.contextLength),
    /** Base seed for logprobs when a request sends no `sampling_seed`. */
    seed: z.number().int().default(SIM_DEFAULTS.seed),
    /** σ of deterministic Gaussian noise on input-scored logprobs (rescoring), 0 = exact. */
    logprobNoise: z.number().min(0).default(0),
    /** From this token position on, input-scored logprobs are scaled by 1.25 (a drifted kernel). */
    logprobDriftAfterTokens: z.number().int().nonnegative().optional(),
    /**
     * The explicit distribution model (distribution.ts): sampled logprobs at the request's
     * temperature, prompt-scoring ones at T = 1, top-k from the distribution, the kept set of
     * top_p / top_k / min_p returned as `top_p_kept_token_ids` / `_offsets`. Off: the heuristic.
     */
    logitModel: z.boolean().default(false),
    /** With `logitModel`: sampled logprobs renormalised over the kept set (vLLM processed logprobs). */
    renormalizeKept: z.boolean().default(false),
    /** σ of log-odds noise on input-scored logprobs, times log2 of the call's batch size. */
    batchNoise: z.number().min(0).default(0),
    /** Answer `return_routed_experts` with this MoE shape (SGLang's --enable-return-routed-experts). */
    routedExperts: z
      .object({
        layers: z.number().int().positive(),
        experts: z.number().int().min(2),
        topK: z.number().int().positive(),
      })
      .refine((r) => r.topK <= r.experts, { message: "topK must be at most experts" })
      .optional(),
    /** Milliseconds spent "queued" before the first token of every `/generate` call. */
    requestLatencyMs: z.number().min(0).default(0),
    /** Milliseconds between two decode steps. */
    tokenLatencyMs: z.number().min(0).default(0),
    /** `cumulative` is SGLang's default; `delta` mimics `--incremental-streaming-output`. */
    streamMode: z.enum(["cumulative", "delta"]).default("cumulative"),
    faults: faultOptionsSchema.default({
      rate503: 0,
      rate500: 0,
      rateDrop: 0,
      rateStall: 0,
      rateMalformed: 0,
      rateAbortBeforePrefill: 0,
      seed: SIM_DEFAULTS.faultSeed,
    }),
  })
  .refine((o) => o.logitModel || !o.renormalizeKept, {
    message: "renormalizeKept needs logitModel (the kept set comes from the explicit distribution)",
    path: ["renormalizeKept"],
  });

export type SimOptions = z.infer<typeof simOptionsSchema>;
export type SimOptionsInput = z.input<typeof simOptionsSchema>;

/** Validates simulator options, naming every bad field. */
export function parseSimOptions(raw: unknown): SimOptions {
  const result = simOptionsSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`);
    throw new Error(`invalid simulator options:\n  ${issues.join("\n  ")}`);
  }
  return result.data;
}

/** The model name the simulator shows everywhere, so it can never pass for a real model. */
export function simModelName(policy: PolicyName): string {
  return `rollout-lens/simulator (${policy})`;
}
