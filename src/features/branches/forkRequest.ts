import type { Trajectory } from "../../core/trajectory/types";
import { type ForkEpisodeRequest, MAX_BRANCHES } from "../../core/wire/episodes";

/** Where the parent comes from: a stored episode, or a row of a server file (line, row in line). */
export type ForkSource =
  | { readonly episode: string }
  | { readonly file: string; readonly line: number; readonly row: number };

/** The tool results the segment starting at `index` answers (what the edit box starts from). */
export function toolResultsAt(parent: Trajectory, index: number): string[] {
  let start = 0;
  for (let s = 0; s < parent.segments.length; s++) {
    const segment = parent.segments[s];
    if (!segment) break;
    if (start === index) {
      const calls = parent.segments[s - 1]?.toolCalls ?? [];
      return calls.length > 0 ? calls.map((c) => c.result ?? "") : [segment.text ?? ""];
    }
    start += segment.tokenIds.length;
  }
  return [""];
}

/** `text` as a number; `fallback` when it is blank or not a finite number. */
function numberOr(text: string, fallback: number | undefined): number | undefined {
  const value = Number(text);
  return text.trim() === "" || !Number.isFinite(value) ? fallback : value;
}

/** What the form holds, as typed. */
export interface ForkFields {
  readonly temperature: string;
  readonly maxNewTokens: string;
  readonly maxIterations: string;
  readonly k: string;
}

/** The request that starts the branches the form asks for; tool results only when edited. */
export function forkRequest(
  fields: ForkFields,
  results: readonly string[],
  original: readonly string[],
  fork: ForkSource & { readonly index: number },
): ForkEpisodeRequest {
  const n = Math.max(1, Math.min(MAX_BRANCHES, Math.trunc(numberOr(fields.k, 1) ?? 1)));
  const edited = results.some((r, i) => r !== original[i]);
  const t = numberOr(fields.temperature, undefined);
  const m = numberOr(fields.maxNewTokens, undefined);
  const iterations = numberOr(fields.maxIterations, undefined);
  return {
    fork: {
      ...fork,
      ...(edited ? { tool_result: results.length === 1 ? (results[0] ?? "") : [...results] } : {}),
    },
    n,
    sampling_params: {
      ...(t === undefined ? {} : { temperature: t }),
      ...(m === undefined ? {} : { max_new_tokens: Math.trunc(m) }),
    },
    ...(iterations === undefined ? {} : { max_iterations: Math.trunc(iterations) }),
  };
}
