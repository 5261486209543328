import { segmentOfToken } from "../../src/core/layout/flatTrajectory";
import { displayPieces } from "../../src/core/tokenizer/pieces";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { laneNames, laneValues } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";

/** One token as `get_tokens` answers it. */
export interface WindowToken {
  readonly i: number;
  readonly id: number;
  /** Its text as the app shows it (null when the ids cannot be the tokenizer's). */
  readonly text: string | null;
  readonly segment: "prompt" | "model" | "tool";
  readonly turn: number;
  readonly mask: 0 | 1;
  readonly logprob: number | null;
  /** Other lanes (trainer, reference, rescored, ...) at this token, where recorded. */
  readonly lanes?: Readonly<Record<string, number | null>>;
  /** The alternatives the engine recorded, each decoded. */
  readonly top?: readonly { id: number; text: string | null; logprob: number }[];
}

/** Tokens before the window decoded with it, so a character split across the edge reads right. */
const CONTEXT = 8;

interface Flat {
  readonly ids: number[];
  readonly at: (i: number) => { segment: number; k: number };
}

function flatten(t: Trajectory): Flat {
  const ids: number[] = [];
  const starts: number[] = [];
  for (const s of t.segments) {
    starts.push(ids.length);
    for (const id of s.tokenIds) ids.push(id);
  }
  starts.push(ids.length);
  return {
    ids,
    at(i) {
      const segment = segmentOfToken(starts, i);
      return { segment, k: i - (starts[segment] ?? 0) };
    },
  };
}

function pieceOf(tokenizer: Tokenizer | undefined, id: number): string | null {
  if (!tokenizer) return null;
  try {
    return displayPieces([id], (x) => tokenizer.tokenBytes(x))[0] ?? null;
  } catch {
    return null;
  }
}

function piecesOf(tokenizer: Tokenizer | undefined, ids: readonly number[]): (string | null)[] {
  if (!tokenizer) return ids.map(() => null);
  try {
    return displayPieces(ids, (x) => tokenizer.tokenBytes(x));
  } catch {
    // Some id is not the tokenizer's: each token alone, null where unknown.
    return ids.map((id) => pieceOf(tokenizer, id));
  }
}

/** Tokens [start, start + count) of `t` with their pieces, mask, segment, lanes and top-k. */
export function tokenWindow(
  t: Trajectory,
  start: number,
  count: number,
  tokenizer: Tokenizer | undefined,
): { total: number; tokens: WindowToken[] } {
  const flat = flatten(t);
  const total = flat.ids.length;
  const end = Math.min(total, start + count);
  const from = Math.max(0, start - CONTEXT);
  const pieces = piecesOf(tokenizer, flat.ids.slice(from, end)).slice(start - from);
  const lanes = laneNames(t).map((name) => [name, laneValues(t, name)] as const);
  const tokens: WindowToken[] = [];
  for (let i = start; i < end; i++) {
    const { segment, k } = flat.at(i);
    const s = t.segments[segment];
    if (!s) break;
    const laneAt: Record<string, number | null> = {};
    for (const [name, values] of lanes) laneAt[name] = values?.[i] ?? null;
    const top = s.topLogprobs?.[k];
    tokens.push({
      ...{ i, id: flat.ids[i] ?? 0, text: pieces[i - start] ?? null },
      ...{ segment: s.kind, turn: s.turn, mask: s.lossMask[k] === 1 ? 1 : 0 },
      logprob: s.logprobs[k] ?? null,
      ...(lanes.length > 0 ? { lanes: laneAt } : {}),
      ...(top
        ? {
            top: top.map((a) => ({
              id: a.tokenId,
              text: pieceOf(tokenizer, a.tokenId),
              logprob: a.logprob,
            })),
          }
        : {}),
    });
  }
  return { total, tokens };
}

/** First position of `needle` in the trajectory's ids, or -1. */
export function findIds(t: Trajectory, needle: readonly number[]): number {
  const { ids } = flatten(t);
  if (needle.length === 0) return -1;
  const first = needle[0];
  outer: for (let i = ids.indexOf(first ?? -1); i !== -1; i = ids.indexOf(first ?? -1, i + 1)) {
    for (let k = 1; k < needle.length; k++) if (ids[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}
