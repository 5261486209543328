import type { Tokenizer } from "./types";

// The added tokens of a tokenizer and where their text occurs in recorded bytes other than as the
// recorded added token itself ("stray" text, which changes how the real encoder splits the run).

/** The tokenizer's added tokens, indexed for the stray-text scan. */
export interface AddedTokens {
  /** 1 at an added token's id. */
  readonly isAdded: Uint8Array;
  /** Added tokens' bytes by their first byte. */
  readonly byFirstByte: ReadonlyMap<number, readonly Uint8Array[]>;
  /** 1 at a byte some added token starts with. */
  readonly startsAdded: Uint8Array;
  /** The one first byte every added token shares, or -1. */
  readonly onlyFirst: number;
}

export function indexAddedTokens(tokenizer: Tokenizer): AddedTokens {
  const vocabSize = tokenizer.vocabSize;
  const isAdded = new Uint8Array(vocabSize);
  const byFirstByte = new Map<number, Uint8Array[]>();
  for (let id = 0; id < vocabSize; id++) {
    if (!tokenizer.isAdded(id)) continue;
    isAdded[id] = 1;
    const bytes = tokenizer.tokenBytes(id);
    const first = bytes[0];
    if (first === undefined) continue;
    if (bytes.some((b) => b >= 0x80)) {
      throw new Error(
        `${tokenizer.id}: added token ${id} is not ASCII; the fast path assumes it is`,
      );
    }
    const list = byFirstByte.get(first) ?? [];
    list.push(bytes);
    byFirstByte.set(first, list);
  }
  const startsAdded = new Uint8Array(256);
  for (const b of byFirstByte.keys()) startsAdded[b] = 1;
  const onlyFirst = byFirstByte.size === 1 ? ([...byFirstByte.keys()][0] ?? -1) : -1;
  return { isAdded, byFirstByte, startsAdded, onlyFirst };
}

/**
 * Byte spans [start, end) of buf[0, total) where an added token's text occurs other than exactly
 * at a recorded added token (the same scan the real splitter's leftmost-longest match makes;
 * empty when none). `offsets` holds each id's first byte.
 */
export function strayAddedText(
  added: AddedTokens,
  buf: Uint8Array,
  offsets: Int32Array,
  ids: readonly number[],
  total: number,
): number[] {
  const { isAdded, byFirstByte, startsAdded, onlyFirst } = added;
  const spans: number[] = [];
  let t = 0;
  for (let p = 0; p < total; p++) {
    // With one possible first byte (`<` for Qwen and Llama-3), jump to its next occurrence.
    if (onlyFirst >= 0) {
      p = buf.indexOf(onlyFirst, p);
      if (p < 0 || p >= total) break;
    } else if (startsAdded[buf[p] ?? 0] === 0) continue;
    while ((offsets[t + 1] ?? total) <= p) t++;
    const id = ids[t] ?? 0;
    const tokenStart = offsets[t] ?? 0;
    const tokenEnd = offsets[t + 1] ?? 0;
    if (isAdded[id] === 1) {
      if (tokenStart === p) {
        for (const c of byFirstByte.get(buf[p] ?? 0) ?? []) {
          if (c.length > tokenEnd - p && matchesAt(buf, total, p, c)) spans.push(p, p + c.length);
        }
      }
      p = tokenEnd - 1;
      continue;
    }
    for (const c of byFirstByte.get(buf[p] ?? 0) ?? []) {
      if (matchesAt(buf, total, p, c)) spans.push(p, p + c.length);
    }
  }
  return spans;
}

/** True when some stray span of `spans` overlaps bytes [from, to). */
export function overlapsStray(spans: readonly number[], from: number, to: number): boolean {
  for (let k = 0; k < spans.length; k += 2) {
    if ((spans[k] ?? 0) < to && (spans[k + 1] ?? 0) > from) return true;
  }
  return false;
}

function matchesAt(buf: Uint8Array, total: number, p: number, content: Uint8Array): boolean {
  if (p + content.length > total) return false;
  for (let k = 0; k < content.length; k++) if (buf[p + k] !== content[k]) return false;
  return true;
}
