import { tokenCount } from "../trajectory/flatten";
import type { Trajectory } from "../trajectory/types";
import { NEMO_RL_LANE_KEYS } from "./nemoRl";
import { isSlimeSample } from "./types";

/*
 * Extra per-token number arrays a record carries besides the token ids, mask and behaviour
 * logprobs: per-token advantages (NeMo-RL, atropos), reference
 * logprobs (atropos `ref_logprobs`), teacher logprobs (slime `teacher_log_probs`). Readers keep
 * them verbatim in metadata under the producer's key; this is the one place that finds them, one
 * value per token of the trajectory (token index space), for views that draw them as lanes.
 */

/** Metadata keys that hold a per-token lane, by the format that writes them. */
export const TOKEN_LANE_KEYS: Readonly<Record<string, readonly string[]>> = {
  "nemo-rl": NEMO_RL_LANE_KEYS,
  atropos: ["advantages", "ref_logprobs"],
  slime: ["teacher_log_probs"],
  "skyrl-batch": ["teacher_log_probs"],
  "prime-rl-rollouts": ["teacher_log_probs"],
};

/** One lane: its metadata key and one value per token (null where the record has none). */
export interface TokenLane {
  readonly key: string;
  readonly values: readonly (number | null)[];
}

/** The row's own array: batches of one are unwrapped, grouped lists indexed by the row. */
function ownArray(value: unknown, row: number): unknown[] | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value.length > 0 && value.every(Array.isArray)) {
    const own: unknown = value.length === 1 ? value[0] : value[row];
    return Array.isArray(own) ? own : undefined;
  }
  return value;
}

/**
 * The per-token lanes of `t`, each cut to the trajectory's token count (padding after the real
 * tokens dropped). A key whose array is shorter than the tokens, or holds non-numbers, is skipped:
 * it is not a per-token lane of this row. Slime's arrays cover the response only and are placed
 * after the prompt (null on prompt tokens).
 */
export function tokenLanesOf(t: Trajectory): TokenLane[] {
  const keys = TOKEN_LANE_KEYS[t.format] ?? [];
  const n = tokenCount(t.segments);
  const first = t.segments[0];
  const offset = isSlimeSample(t.format) && first?.kind === "prompt" ? first.tokenIds.length : 0;
  const lanes: TokenLane[] = [];
  for (const key of keys) {
    const own = ownArray(t.metadata[key], t.source.row ?? 0);
    if (!own || own.length < n - offset) continue;
    if (!own.every((v) => v === null || typeof v === "number")) continue;
    const values: (number | null)[] = new Array(n).fill(null);
    for (let k = offset; k < n; k++) values[k] = (own[k - offset] as number | null) ?? null;
    lanes.push({ key, values });
  }
  return lanes;
}
