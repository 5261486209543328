import { z } from "zod";
import { fieldPath } from "../formats/wireSchemas";
import { KNOB_NAMES, type RescoreSetting, type RowName } from "./knobs";

/** The `format` of a repro bundle (docs/bisect.md#the-repro-bundle). */
export const BUNDLE_FORMAT = "rollout-lens/bisect-bundle";

const rowNames = ["reference", ...KNOB_NAMES] as const satisfies readonly RowName[];

/** A lane: one logprob (natural log, ≤ 0) or null per id. */
const laneSchema = z.array(z.number().max(0, "a logprob must be ≤ 0").nullable());

const settingSchema = z.strictObject({
  temperature: z.number().nonnegative(),
  truncation: z
    .strictObject({
      top_p: z.number().gt(0).lte(1),
      top_k: z.int().min(-1),
    })
    .optional(),
  cotenants: z.int().nonnegative().max(255),
  mode: z.enum(["prefill", "decode"]),
  upstream: z.enum(["a", "b"]),
}) satisfies z.ZodType<RescoreSetting>;

const ranSchema = z.strictObject({
  knob: z.enum(rowNames),
  status: z.literal("ran"),
  change: z.string(),
  setting: settingSchema,
  /** The upstream that answered. */
  upstream: z.string(),
  lane: laneSchema,
  /** What the reader should know: approximate tokens, tokens outside the kept set, tokens capped. */
  notes: z.array(z.string()),
});

const uncheckedSchema = z.strictObject({
  knob: z.enum(rowNames),
  status: z.literal("unchecked"),
  reason: z.string().min(1),
  /** Present when the knob was planned but its rescore failed: a rerun tries it again. */
  change: z.string().optional(),
  setting: settingSchema.optional(),
});

const serverSchema = z.strictObject({
  url: z.string().min(1),
  /** `/get_model_info` (or `/model_info`) as the server answered, null when it did not. */
  model_info: z.unknown(),
  /** `/get_server_info` (or `/server_info`) as the server answered, null when it did not. */
  server_info: z.unknown(),
});

export const bundleSchema = z.strictObject({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(1),
  created_at: z.string(),
  /** Where the ids came from (file and row, or an episode). */
  source: z.strictObject({
    file: z.string().optional(),
    row: z.int().nonnegative().optional(),
    line: z.int().positive().optional(),
    episode: z.string().optional(),
    trajectory_id: z.string().optional(),
  }),
  /** Prompt + completion, every id of the trajectory in order. */
  ids: z.array(z.int().nonnegative()).min(2, "needs at least two ids"),
  /** 1 where the policy is trained (the tokens compared), one per id. */
  mask: z.array(z.union([z.literal(0), z.literal(1)])),
  sampling_params: z.record(z.string(), z.unknown()),
  /** The lane every knob is compared with: the recorded sampled logprobs, or the reference rescore. */
  baseline: z.strictObject({ name: z.enum(["sampled", "reference"]), lane: laneSchema }),
  options: z.strictObject({
    batch_size: z.int().min(2).max(256),
    top_logprobs: z.int().min(1).max(1000),
    decode_max_tokens: z.int().min(1),
  }),
  knobs: z.array(z.discriminatedUnion("status", [ranSchema, uncheckedSchema])).min(1),
  server: serverSchema,
  server_b: serverSchema.optional(),
  /** sha256 of the tokenizer files the ids are read with, or why there is none. */
  tokenizer: z.union([
    z.strictObject({ name: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    z.strictObject({ name: z.string(), unchecked: z.string() }),
  ]),
});

export type BisectBundle = z.infer<typeof bundleSchema>;
export type KnobResult = BisectBundle["knobs"][number];

/** Length checks the schema cannot state: every per-token array has one entry per id. */
function lengthProblems(b: BisectBundle): { path: string; message: string } | undefined {
  const n = b.ids.length;
  const check = (path: string, length: number) =>
    length === n ? undefined : { path, message: `has ${length} entries but ids has ${n}` };
  const problems = [
    check("mask", b.mask.length),
    check("baseline.lane", b.baseline.lane.length),
    ...b.knobs.map((k, i) =>
      k.status === "ran" ? check(`knobs[${i}].lane`, k.lane.length) : undefined,
    ),
  ];
  const first = problems.find((p) => p !== undefined);
  if (first) return first;
  if (!b.mask.includes(1))
    return { path: "mask", message: "marks no trained token: nothing to compare" };
  if (b.knobs[0]?.knob !== "reference")
    return { path: "knobs[0].knob", message: `must be "reference", got "${b.knobs[0]?.knob}"` };
  return undefined;
}

export type BundleParse =
  | { readonly ok: true; readonly bundle: BisectBundle }
  | { readonly ok: false; readonly error: string };

/** A bundle from its JSON text, or an error naming `name` and the field path of the first problem. */
export function parseBundle(text: string, name: string): BundleParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `${name}: not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return checkBundle(value, name);
}

/** A parsed JSON value checked as a bundle (see parseBundle). */
export function checkBundle(value: unknown, name: string): BundleParse {
  const parsed = bundleSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? fieldPath(issue.path) : "";
    return {
      ok: false,
      error: `${name}: ${field || "(bundle)"}: ${issue?.message ?? "invalid bundle"}`,
    };
  }
  const problem = lengthProblems(parsed.data);
  if (problem) return { ok: false, error: `${name}: ${problem.path}: ${problem.message}` };
  return { ok: true, bundle: parsed.data };
}
