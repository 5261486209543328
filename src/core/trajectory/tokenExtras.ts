import { isNumbers } from "../isRecord";
import { keptSetReader } from "./keptSets";
import type { Trajectory } from "./types";

/*
 * Per-token facts a record keeps beside its token arrays (docs/format.md "slime and miles `.pt`
 * dumps"), for the token detail: slime/miles' `rollout_routed_experts` ([T-1, layers, top-k]:
 * the experts the MoE router chose at token t, one row per token but the last), the set the
 * sampler kept (`keptSetReader`: the segment's own, slime's top-p nucleus, verifiers'), and per-response-token training values from a train dump (`advantages`,
 * `entropy`). Each is undefined where the record has none for that token.
 */
export interface TokenExtras {
  /** Expert ids per layer (one list per layer). */
  readonly routedExperts?: readonly (readonly number[])[];
  /** Token ids of the set the sampler kept (top-p nucleus) at this token. */
  readonly topPKept?: readonly number[];
  readonly advantage?: number;
  readonly entropy?: number;
}

function expertsAt(value: unknown, token: number): (readonly number[])[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const row: unknown = value[token];
  if (isNumbers(row)) return [row];
  if (Array.isArray(row) && row.every(isNumbers)) return row as number[][];
  return undefined;
}

function numberAt(value: unknown, k: number): number | undefined {
  if (!Array.isArray(value) || k < 0) return undefined;
  const v: unknown = value[k];
  return typeof v === "number" ? v : undefined;
}

/** What the record says about token `token` beyond id, mask and logprob. */
export function tokenExtras(t: Trajectory, token: number): TokenExtras {
  const m = t.metadata;
  const first = t.segments[0];
  const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
  const r = token - promptLength;
  const out: {
    routedExperts?: (readonly number[])[];
    topPKept?: readonly number[];
    advantage?: number;
    entropy?: number;
  } = {};
  const experts = expertsAt(m.rollout_routed_experts, token);
  if (experts) out.routedExperts = experts;
  const kept = keptSetReader(t)?.(token);
  if (kept) out.topPKept = kept;
  const advantage = numberAt(m.advantages, r);
  if (advantage !== undefined) out.advantage = advantage;
  const entropy = numberAt(m.entropy, r);
  if (entropy !== undefined) out.entropy = entropy;
  return out;
}
