/**
 * A long per-token series (the running Σδ of the mismatch view) cut into at most `maxBuckets`
 * equal spans of positions, each kept as its min and max: drawn as a band, a spike of one token
 * among 131k stays visible, which a mean or a stride would lose.
 */
export interface EnvelopeBucket {
  /** First and one-past-last position of the span. */
  readonly start: number;
  readonly end: number;
  readonly min: number;
  readonly max: number;
}

/** Min/max per span of `values` (NaN skipped; a span of NaN only is left out). */
export function envelope(values: ArrayLike<number>, maxBuckets: number): EnvelopeBucket[] {
  const n = values.length;
  if (n === 0 || maxBuckets < 1) return [];
  const buckets = Math.min(n, Math.floor(maxBuckets));
  const out: EnvelopeBucket[] = [];
  for (let b = 0; b < buckets; b++) {
    const start = Math.floor((b * n) / buckets);
    const end = Math.floor(((b + 1) * n) / buckets);
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = start; k < end; k++) {
      const v = values[k] ?? Number.NaN;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (min <= max) out.push({ start, end, min, max });
  }
  return out;
}
