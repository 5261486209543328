import { z } from "zod";
import { fieldPath } from "../formats/wireSchemas";
import { type BisectBundle, checkBundle } from "./bundle";

/** The `format` of a sample's repro bundle (docs/bisect.md#a-sample-of-rows). */
export const SAMPLE_BUNDLE_FORMAT = "rollout-lens/bisect-sample-bundle";

const sampleBundleSchema = z.strictObject({
  format: z.literal(SAMPLE_BUNDLE_FORMAT),
  version: z.literal(1),
  created_at: z.string(),
  sample: z.strictObject({
    file: z.string(),
    n: z.int().positive(),
    seed: z.int().nonnegative(),
    /** The rows picked, ascending; one bundle each, in this order. */
    rows: z.array(z.int().nonnegative()).min(1),
    skipped: z.array(z.strictObject({ row: z.int().nonnegative(), reason: z.string() })),
  }),
  /** One row's repro bundle per picked row (each checked as a bundle). */
  bundles: z.array(z.unknown()).min(1),
});

export interface SampleBundle {
  readonly format: typeof SAMPLE_BUNDLE_FORMAT;
  readonly version: 1;
  readonly created_at: string;
  readonly sample: z.infer<typeof sampleBundleSchema>["sample"];
  readonly bundles: readonly BisectBundle[];
}

export type SampleBundleParse =
  | { readonly ok: true; readonly bundle: SampleBundle }
  | { readonly ok: false; readonly error: string };

/** Whether a parsed JSON value claims to be a sample bundle (its `format`). */
export function isSampleBundle(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { format?: unknown }).format === SAMPLE_BUNDLE_FORMAT
  );
}

/** A parsed JSON value checked as a sample bundle; an error names `name` and the field path. */
export function checkSampleBundle(value: unknown, name: string): SampleBundleParse {
  const parsed = sampleBundleSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? fieldPath(issue.path) : "";
    return { ok: false, error: `${name}: ${field || "(bundle)"}: ${issue?.message ?? "invalid"}` };
  }
  const { sample, bundles: raw } = parsed.data;
  if (raw.length !== sample.rows.length)
    return {
      ok: false,
      error: `${name}: bundles: has ${raw.length} entries but sample.rows has ${sample.rows.length}`,
    };
  const bundles: BisectBundle[] = [];
  for (const [i, b] of raw.entries()) {
    const one = checkBundle(b, `${name}: bundles[${i}]`);
    if (!one.ok) return one;
    if (one.bundle.source.row !== sample.rows[i])
      return {
        ok: false,
        error: `${name}: bundles[${i}].source.row: is ${one.bundle.source.row} but sample.rows[${i}] is ${sample.rows[i]}`,
      };
    bundles.push(one.bundle);
  }
  return { ok: true, bundle: { ...parsed.data, bundles } };
}
