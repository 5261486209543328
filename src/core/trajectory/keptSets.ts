import { isNumbers } from "../isRecord";
import type { Trajectory } from "./types";

/*
 * The sampler's kept set (top-p / top-k) per token, where a record carries one (docs/mismatch.md
 * "Decomposition"): the model segments' `keptTokenIds` (an episode recorded from a server that
 * returns them, docs/sglang.md "Kept sets"); slime's `rollout_top_p_token_ids` cut by
 * `rollout_top_p_token_offsets` (one entry per response token, the response starting after the
 * prompt segment); verifiers' `kept_tokens` ({ids, counts}, counts per sampled token). An empty set
 * reads as none: the sampled token is always in the set the sampler kept.
 */

/** Reads token `token`'s kept set (token-index space), or undefined where there is none. */
export type KeptSetReader = (token: number) => readonly number[] | undefined;

/** Readers already built, per trajectory (a row's decomposition asks several times). */
const built = new WeakMap<Trajectory, KeptSetReader | null>();

/** Per token, the kept set the record carries, or undefined when it carries none anywhere. */
export function keptSetReader(t: Trajectory): KeptSetReader | undefined {
  let reader = built.get(t);
  if (reader === undefined) {
    reader = segmentKept(t) ?? slimeKept(t) ?? verifiersKept(t, t.metadata.kept_tokens) ?? null;
    built.set(t, reader);
  }
  return reader ?? undefined;
}

function segmentKept(t: Trajectory): KeptSetReader | undefined {
  if (!t.segments.some((s) => s.keptTokenIds)) return undefined;
  const byToken: (readonly number[] | null | undefined)[] = [];
  for (const s of t.segments) {
    for (let i = 0; i < s.tokenIds.length; i++) byToken.push(s.keptTokenIds?.[i]);
  }
  return (token) => {
    const kept = byToken[token];
    return kept && kept.length > 0 ? kept : undefined;
  };
}

function slimeKept(t: Trajectory): KeptSetReader | undefined {
  const ids = t.metadata.rollout_top_p_token_ids;
  const offsets = t.metadata.rollout_top_p_token_offsets;
  if (!isNumbers(ids) || !isNumbers(offsets)) return undefined;
  const first = t.segments[0];
  const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
  return (token) => {
    const r = token - promptLength;
    const from = offsets[r];
    const to = offsets[r + 1];
    if (r < 0 || from === undefined || to === undefined || to <= from) return undefined;
    return ids.slice(from, to);
  };
}

/**
 * verifiers' `kept_tokens` (`verifiers/v1/types.py` KeptTokens): `ids` flat in position order,
 * `counts` per token, 0 = none; a node's counts run over its sampled (mask 1) tokens, a trace's
 * (`Trace.kept_tokens`) over every token. Other lengths are not read.
 */
function verifiersKept(t: Trajectory, value: unknown): KeptSetReader | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { ids, counts } = value as { ids?: unknown; counts?: unknown };
  if (!isNumbers(ids) || !isNumbers(counts)) return undefined;
  const mask = t.segments.flatMap((s) => s.lossMask);
  const sampled = mask.filter((m) => m === 1).length;
  if (counts.length !== mask.length && counts.length !== sampled) return undefined;
  const perToken = counts.length === mask.length;
  const byToken = new Map<number, number[]>();
  let c = 0;
  let at = 0;
  mask.forEach((m, token) => {
    if (!perToken && m !== 1) return;
    const count = counts[c++] ?? 0;
    if (count > 0) byToken.set(token, ids.slice(at, at + count));
    at += count;
  });
  return (k: number) => byToken.get(k);
}
