import type { Tokenizer } from "../../src/core/tokenizer/types";

const WORD_PIECE = /^ ?[A-Za-z]{4,}$/;

function findSplit(tokenizer: Tokenizer, piece: string): [number, number] | undefined {
  for (let cut = 2; cut <= piece.length - 2; cut++) {
    const head = tokenizer.encode(piece.slice(0, cut));
    const tail = tokenizer.encode(piece.slice(cut));
    if (head.length === 1 && tail.length === 1 && head[0] !== undefined && tail[0] !== undefined) {
      return [head[0], tail[0]];
    }
  }
  return undefined;
}

/**
 * Re-splits every second single-token word of `ids` into two vocab pieces with the same text, the
 * kind of valid but non-canonical tokenization a sampled model emits. Decoding is unchanged;
 * re-encoding the text gives the canonical (different) ids.
 */
export function splitNonCanonically(tokenizer: Tokenizer, ids: readonly number[]): number[] {
  const out: number[] = [];
  let words = 0;
  for (const id of ids) {
    const piece = tokenizer.isAdded(id) ? "" : tokenizer.decode([id]);
    if (WORD_PIECE.test(piece) && words++ % 2 === 0) {
      const split = findSplit(tokenizer, piece);
      if (split) {
        out.push(...split);
        continue;
      }
    }
    out.push(id);
  }
  return out;
}
