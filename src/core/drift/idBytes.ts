import type { Tokenizer } from "../tokenizer/types";

/** The ids' concatenated bytes and each token's byte offset, looking each token up once. */
export function bytesAndOffsets(ids: readonly number[], tokenizer: Tokenizer) {
  const parts: Uint8Array[] = new Array(ids.length);
  const offsets = new Uint32Array(ids.length + 1);
  let total = 0;
  for (let i = 0; i < ids.length; i++) {
    const b = tokenizer.tokenBytes(ids[i] ?? 0);
    parts[i] = b;
    offsets[i] = total;
    total += b.length;
  }
  offsets[ids.length] = total;
  const bytes = new Uint8Array(total);
  for (let i = 0; i < ids.length; i++) {
    const b = parts[i];
    if (b) bytes.set(b, offsets[i] ?? 0);
  }
  return { bytes, offsets };
}

export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** First token index where `a` and `b` differ (or the shorter length); undefined when equal. */
export function firstDivergence(a: readonly number[], b: readonly number[]): number | undefined {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? undefined : n;
}
