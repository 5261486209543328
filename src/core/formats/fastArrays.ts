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
 * A line's per-token wire arrays as `provesSpans` reads them. `loss_mask[j]` and `logprobs[j]` are
 * token `offset + j` (slime stores them for the response only); a missing one is not on the wire,
 * so there is nothing of it to prove (slime's mask comes from the span kinds, its logprobs null).
 */
export interface SpanArrays {
  readonly token_ids: readonly unknown[];
  readonly loss_mask: readonly unknown[] | null | undefined;
  readonly logprobs: readonly unknown[] | null | undefined;
}

/**
 * One pass per span (token index space) over a line's three wire arrays, proving what the schema's
 * per-token checks and the per-token invariants would each prove in passes of their own: ids are
 * non-negative safe integers, the mask is the span kind's (model 1, else 0), logprobs are numbers
 * or null and none > 0 on a model token. Spans before `offset` (token index of `loss_mask[0]` and
 * `logprobs[0]`) have ids alone to prove; a span across `offset` fails. False when anything fails
 * or is missing; callers then take their exact path, so verdicts and messages never depend on this
 * shortcut.
 */
export function provesSpans(
  arrays: SpanArrays,
  spans: readonly { readonly kind: string; readonly start: number; readonly end: number }[],
  offset = 0,
): boolean {
  const ids = arrays.token_ids;
  const mask = arrays.loss_mask;
  const lps = arrays.logprobs;
  // Split by element kind as isLogprobArray is: null-free logprobs (slime's 0.0 placeholders) are
  // double arrays, and one loop seeing both kinds runs ~15% of a line's JSON.parse slower (issue 6
  // bench). includes(null) is O(1) on a double array and stops at the first null on the others.
  const provesRun = lps && !lps.includes(null) ? provesRunDense : provesRunMixed;
  for (const s of spans) {
    if (s.end <= offset) {
      if (!provesIds(ids, s.start, s.end)) return false;
      continue;
    }
    if (s.start < offset) return false;
    if (!provesRun(ids, mask, lps, s.start, s.end, offset, s.kind === "model")) return false;
  }
  return true;
}

/** True when `ids[start..end)` (token index space) are all non-negative safe integers. */
function provesIds(ids: readonly unknown[], start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const id = ids[k];
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return false;
  }
  return true;
}

/** provesSpans on one span [start, end) at or after `offset`: model (mask 1, logprobs <= 0) or not. */
function provesRunMixed(
  ids: readonly unknown[],
  mask: readonly unknown[] | null | undefined,
  lps: readonly unknown[] | null | undefined,
  start: number,
  end: number,
  offset: number,
  isModel: boolean,
): boolean {
  const expected = isModel ? 1 : 0;
  for (let k = start; k < end; k++) {
    const id = ids[k];
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return false;
    const j = k - offset;
    if (mask && mask[j] !== expected) return false;
    if (!lps) continue;
    const lp = lps[j];
    if (lp === null) continue;
    if (typeof lp !== "number" || (isModel && lp > 0)) return false;
  }
  return true;
}

// The same loop as provesRunMixed, kept apart so its element-kind feedback stays its own.
function provesRunDense(
  ids: readonly unknown[],
  mask: readonly unknown[] | null | undefined,
  lps: readonly unknown[] | null | undefined,
  start: number,
  end: number,
  offset: number,
  isModel: boolean,
): boolean {
  const expected = isModel ? 1 : 0;
  for (let k = start; k < end; k++) {
    const id = ids[k];
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return false;
    const j = k - offset;
    if (mask && mask[j] !== expected) return false;
    if (!lps) continue;
    const lp = lps[j];
    if (lp === null) continue;
    if (typeof lp !== "number" || (isModel && lp > 0)) return false;
  }
  return true;
}
