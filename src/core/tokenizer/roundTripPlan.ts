import { z } from "zod";
import type { RoundTripAccelerator } from "./roundTripFast";
import { createRoundTripAccelerator } from "./roundTripFast";
import type { Tokenizer } from "./types";

/** Which round trip a drift check runs: the fast path, or the exact `encode(decode(ids))`. */
export type RoundTripPath = "fast" | "exact";

/** Split regexes the core scanner reproduces exactly, with their longest digit run. */
const KNOWN_SPLITS: Readonly<Record<string, number>> = {
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": 1,
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": 3,
};

/** The parts of tokenizer.json the fast path depends on; anything else means "no fast path". */
const pipelineSchema = z.object({
  normalizer: z.union([z.null(), z.object({ type: z.literal("NFC") })]),
  pre_tokenizer: z.object({
    type: z.literal("Sequence"),
    pretokenizers: z.tuple([
      z.object({
        type: z.literal("Split"),
        pattern: z.object({ Regex: z.string() }),
        behavior: z.literal("Isolated"),
        invert: z.literal(false),
      }),
      z.object({
        type: z.literal("ByteLevel"),
        add_prefix_space: z.literal(false),
        use_regex: z.literal(false),
      }),
    ]),
  }),
  decoder: z.object({ type: z.literal("ByteLevel") }),
  model: z.object({
    type: z.literal("BPE"),
    dropout: z.null().optional(),
    byte_fallback: z.literal(false).optional(),
  }),
  added_tokens: z.array(
    z.object({ lstrip: z.literal(false), rstrip: z.literal(false), single_word: z.literal(false) }),
  ),
});

/** Whether the fast path is exact for a tokenizer.json, and what it needs to know when it is. */
export type FastRoundTripProof =
  | { readonly applies: true; readonly digitRun: number; readonly nfc: boolean }
  | { readonly applies: false; readonly reason: string };

/**
 * Proves from a parsed tokenizer.json (or its pipeline: normalizer, pre_tokenizer, decoder,
 * model settings, added_tokens) that the fast round trip gives exactly `encode(decode(ids))`:
 * byte-level BPE whose encode is added-token split -> no normalizer or NFC -> the Qwen2/3 or
 * Llama-3 split regex -> BPE per pre-token. Anything else is refused, with the reason.
 */
export function proveFastRoundTrip(tokenizerJson: unknown): FastRoundTripProof {
  const pipeline = pipelineSchema.safeParse(tokenizerJson);
  if (!pipeline.success) {
    const path = pipeline.error.issues[0]?.path ?? [];
    const where = path.join(".") || "tokenizer.json";
    const value = valueAt(tokenizerJson, path);
    return {
      applies: false,
      reason: `${where} ${describe(value)} is not what the fast path reproduces`,
    };
  }
  const split = pipeline.data.pre_tokenizer.pretokenizers[0].pattern.Regex;
  const digitRun = KNOWN_SPLITS[split];
  if (digitRun === undefined) {
    return { applies: false, reason: "pre_tokenizer: the split regex is not Qwen2/3 or Llama-3's" };
  }
  return { applies: true, digitRun, nfc: pipeline.data.normalizer !== null };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A short description of a tokenizer.json value: its `type` when it has one, else its JSON. */
function describe(value: unknown): string {
  if (typeof value === "object" && value !== null && "type" in value) {
    return `(type ${JSON.stringify(value.type)})`;
  }
  const json = JSON.stringify(value) ?? "undefined";
  return `(${json.length > 40 ? `${json.slice(0, 40)}…` : json})`;
}

/** How a tokenizer's round trips run: fast (with its accelerator), or exact and why. */
export type RoundTripPlan =
  | { readonly path: "fast"; readonly accelerator: RoundTripAccelerator }
  | { readonly path: "exact"; readonly accelerator?: undefined; readonly reason: string };

const plans = new WeakMap<Tokenizer, RoundTripPlan>();

/**
 * The round-trip plan for a tokenizer, built once per tokenizer (its verdict caches then serve
 * every file): the fast path where `proveFastRoundTrip` vouches for its tokenizer.json, else the
 * exact path with the reason. The server, the CLI and the browser's drift workers all call this.
 */
export function roundTripPlanFor(tokenizer: Tokenizer): RoundTripPlan {
  let plan = plans.get(tokenizer);
  if (!plan) {
    plan = buildPlan(tokenizer);
    plans.set(tokenizer, plan);
  }
  return plan;
}

function buildPlan(tokenizer: Tokenizer): RoundTripPlan {
  const { pipeline } = tokenizer;
  if (!pipeline) {
    return { path: "exact", reason: `${tokenizer.id}: no tokenizer.json pipeline to check` };
  }
  const proof = proveFastRoundTrip(pipeline.definition);
  if (!proof.applies) return { path: "exact", reason: `${tokenizer.id}: ${proof.reason}` };
  if (pipeline.unusable !== undefined) {
    return { path: "exact", reason: `${tokenizer.id}: ${pipeline.unusable}` };
  }
  try {
    const accelerator = createRoundTripAccelerator(tokenizer, {
      digitRun: proof.digitRun,
      nfc: proof.nfc,
      encodeWord: pipeline.encodeWord,
    });
    return { path: "fast", accelerator };
  } catch (error) {
    return { path: "exact", reason: error instanceof Error ? error.message : String(error) };
  }
}
