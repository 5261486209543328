import { z } from "zod";

/*
 * Per-token arrays (32k+ entries per line) checked by tight loops instead of zod's per-element
 * schemas, which cost ~3x a line's JSON.parse (issue 6 bench). Each predicate accepts exactly what
 * its zod schema in wireSchemas.ts accepts; `safeParseFast` re-runs the exact schema on failure so
 * every error message and field path stays the one zod reports.
 */

/** True when `value` is what `tokenIdsSchema` accepts: an array of non-negative safe integers. */
export function isTokenIdArray(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let k = 0; k < value.length; k++) {
    const v: unknown = value[k];
    // z.int() is Number.isInteger + the safe range; nonnegative() is >= 0 (so -0 passes).
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) return false;
  }
  return true;
}

/** True when `value` is what `z.array(z.int())` accepts: an array of safe integers. */
export function isIntArray(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let k = 0; k < value.length; k++) if (!Number.isSafeInteger(value[k])) return false;
  return true;
}

/** True when `value` is what `mask01Schema` accepts: an array of 0 and 1 (-0 included, as a Set has). */
export function isMask01Array(value: unknown): value is (0 | 1)[] {
  if (!Array.isArray(value)) return false;
  for (let k = 0; k < value.length; k++) {
    const v: unknown = value[k];
    if (v !== 0 && v !== 1) return false;
  }
  return true;
}

/** True when `value` is what `logprobsSchema` accepts: an array of numbers (NaN, ±Infinity too) or null. */
export function isLogprobArray(value: unknown): value is (number | null)[] {
  if (!Array.isArray(value)) return false;
  // Arrays with a null are object arrays; null-free ones from JSON.parse are double arrays. One
  // loop seeing both kinds goes polymorphic and runs several times slower on fresh lines (issue 6
  // bench), so each kind gets its own copy of the same loop; includes(null) is a builtin scan.
  return value.includes(null) ? isNumberOrNullArray(value) : isNumberOrNullDense(value);
}

function isNumberOrNullArray(value: readonly unknown[]): boolean {
  for (let k = 0; k < value.length; k++) {
    const v = value[k];
    if (v !== null && typeof v !== "number") return false;
  }
  return true;
}

// The same loop as isNumberOrNullArray, kept apart so its element-kind feedback stays its own.
function isNumberOrNullDense(value: readonly unknown[]): boolean {
  for (let k = 0; k < value.length; k++) {
    const v = value[k];
    if (v !== null && typeof v !== "number") return false;
  }
  return true;
}

/** Fast stand-ins for tokenIdsSchema / mask01Schema / logprobsSchema (same output types). */
export const fastTokenIds = z.custom<number[]>(isTokenIdArray);
export const fastIntArray = z.custom<number[]>(isIntArray);
export const fastMask01 = z.custom<(0 | 1)[]>(isMask01Array);
export const fastLogprobs = z.custom<(number | null)[]>(isLogprobArray);

/**
 * Parses `value` with `fast` and, only when that fails, with `exact`: the result (and the first
 * issue of any error) is exactly what `exact.safeParse` returns, minus the per-element work.
 * The fast output keeps the input's per-token arrays instead of copying them.
 */
export function safeParseFast<T>(
  fast: z.ZodType<T>,
  exact: z.ZodType<T>,
  value: unknown,
): z.ZodSafeParseResult<T> {
  const quick = fast.safeParse(value);
  return quick.success ? quick : exact.safeParse(value);
}

/**
 * One pass per span (token index space) over a line's three wire arrays, proving what the schema's
 * per-token checks and the per-token invariants would each prove in passes of their own: ids are
 * non-negative safe integers, the mask is the span kind's (model 1, else 0), logprobs are numbers
 * or null and none > 0 on a model token. False when anything fails or is missing; callers then take
 * their exact path, so verdicts and messages never depend on this shortcut.
 */
export function provesSpans(
  arrays: {
    readonly token_ids: readonly unknown[];
    readonly loss_mask: readonly unknown[];
    readonly logprobs: readonly unknown[];
  },
  spans: readonly { readonly kind: string; readonly start: number; readonly end: number }[],
): boolean {
  const ids = arrays.token_ids;
  const mask = arrays.loss_mask;
  const lps = arrays.logprobs;
  for (const s of spans) {
    const isModel = s.kind === "model";
    const expected = isModel ? 1 : 0;
    for (let k = s.start; k < s.end; k++) {
      const id = ids[k];
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return false;
      if (mask[k] !== expected) return false;
      const lp = lps[k];
      if (lp === null) continue;
      if (typeof lp !== "number" || (isModel && lp > 0)) return false;
    }
  }
  return true;
}
