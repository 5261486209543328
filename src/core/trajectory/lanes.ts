import { tokenCount } from "./flatten";
import type { LaneInfo, LaneValues, Trajectory } from "./types";

/** The lane name of the segments' own (sampled, behaviour) logprobs; never stored as a lane. */
export const SAMPLED_LANE = "sampled";

/** Where a trajectory's lanes live, ready to spread into a Trajectory literal. */
export interface LaneFields {
  logprobLanes?: Record<string, LaneValues>;
  logprobLaneInfo?: Record<string, LaneInfo>;
}

/** A per-token array as a lane, or undefined when it is not one (wrong type or length). */
function asLane(value: unknown, length: number, offset: number, total: number): LaneValues | null {
  if (!Array.isArray(value) || value.length !== length) return null;
  for (const v of value) if (v !== null && typeof v !== "number") return null;
  if (offset === 0 && length === total) return value as LaneValues;
  const out: (number | null)[] = new Array(total).fill(null);
  for (let k = 0; k < length; k++) out[offset + k] = value[k] as number | null;
  return out;
}

/**
 * Lanes from per-token arrays a record already carries, for format adapters: every array that
 * is a (number|null)[] of `length` entries becomes the named lane, placed at token `offset` of a
 * `total`-token trajectory (null before and after); absent or mis-shaped arrays are skipped
 * (the adapter keeps those in metadata). For a NeMo-RL row, for example:
 * `...lanesFromArrays({ generation: row.generation_logprobs, prev: row.prev_logprobs }, n)`.
 */
export function lanesFromArrays(
  arrays: Readonly<Record<string, unknown>>,
  total: number,
  options: { length?: number; offset?: number } = {},
): LaneFields {
  const length = options.length ?? total;
  const offset = options.offset ?? 0;
  const lanes: Record<string, LaneValues> = {};
  for (const [name, value] of Object.entries(arrays)) {
    const lane = asLane(value, length, offset, total);
    if (lane) lanes[name] = lane;
  }
  if (Object.keys(lanes).length === 0) return {};
  return { logprobLanes: lanes };
}

/** The names a lane may not take, and the rule, as an error message; undefined when valid. */
export function laneNameProblem(name: string): string | undefined {
  if (name.length === 0) return "a lane name must not be empty";
  if (name === SAMPLED_LANE) return `"${SAMPLED_LANE}" names the sampled logprobs, not a lane`;
  return undefined;
}

/** `t` with lane `name` set (replacing one of that name). Throws when the length is wrong. */
export function withLane(
  t: Trajectory,
  name: string,
  values: LaneValues,
  info?: LaneInfo,
): Trajectory {
  const problem = laneNameProblem(name);
  if (problem) throw new Error(problem);
  const n = tokenCount(t.segments);
  if (values.length !== n) {
    throw new Error(`lane ${name} has ${values.length} entries but the trajectory has ${n} tokens`);
  }
  const lanes = { ...t.logprobLanes, [name]: values };
  const { [name]: _old, ...otherInfo } = t.logprobLaneInfo ?? {};
  const infos = info ? { ...otherInfo, [name]: info } : otherInfo;
  return {
    ...t,
    logprobLanes: lanes,
    logprobLaneInfo: Object.keys(infos).length > 0 ? infos : undefined,
  };
}

/** The sampled logprobs of every token, flat (token index space). */
export function sampledLane(t: Trajectory): (number | null)[] {
  const out: (number | null)[] = new Array(tokenCount(t.segments));
  let k = 0;
  for (const s of t.segments) {
    const lps = s.logprobs;
    for (let i = 0; i < lps.length; i++) out[k++] = lps[i] ?? null;
  }
  return out;
}

/**
 * A metadata value as this trajectory's own per-token array: the value itself, or, for a record
 * that keeps one list per trajectory (an atropos group's extra fields, a batch of one), the list
 * at its row.
 */
function ownMetadataLane(t: Trajectory, value: unknown, n: number): LaneValues | null {
  const flat = asLane(value, n, 0, n);
  if (flat || !Array.isArray(value) || value.length === 0) return flat;
  if (!value.every(Array.isArray)) return null;
  return asLane(value[t.source.row ?? 0], n, 0, n);
}

/**
 * The values of lane `name`: `sampled` (the segments' logprobs), a stored lane, or a per-token
 * numeric array of the right length kept in metadata (an unknown field of the source, offered as
 * a lane rather than dropped; for a group record, its row's list). Undefined when there is none.
 */
export function laneValues(t: Trajectory, name: string): LaneValues | undefined {
  if (name === SAMPLED_LANE) return sampledLane(t);
  const stored = t.logprobLanes?.[name];
  if (stored) return stored;
  const n = tokenCount(t.segments);
  return ownMetadataLane(t, t.metadata[name], n) ?? undefined;
}

/**
 * Rounding slack above 0 a logprob may show (engines return `0.0` or a few ulps above it for a
 * certain token); a per-token array with a larger value holds something else.
 */
const LOGPROB_SLACK = 1e-3;

/**
 * A lane could hold logprobs: at least one number, none above 0 (up to rounding). Per-token
 * rewards, weights or entropies (atropos' `token_scores`, `token_weights`) are positive.
 */
export function looksLikeLogprobs(lane: LaneValues): boolean {
  let any = false;
  for (const v of lane) {
    if (v === null) continue;
    if (!(v <= LOGPROB_SLACK)) return false;
    any = true;
  }
  return any;
}

/**
 * Why a lane returned as log probabilities cannot be one (a rescore reply): no value at all, or a
 * value outside [-inf, 0] (up to rounding) or not a number; undefined when it can. Token index k.
 */
export function logprobLaneProblem(lane: LaneValues): string | undefined {
  let values = 0;
  for (let k = 0; k < lane.length; k++) {
    const v = lane[k];
    if (v === null || v === undefined) continue;
    if (Number.isNaN(v) || v > LOGPROB_SLACK) {
      return `token ${k} has logprob ${v}, outside [-inf, 0]: not a log probability`;
    }
    values += 1;
  }
  return values === 0 ? `all ${lane.length} logprobs are null: nothing was scored` : undefined;
}

/** True when some trained (mask 1) token of `t` has a sampled logprob. */
export function hasSampledLogprobs(t: Trajectory): boolean {
  return t.segments.some((s) => s.logprobs.some((v, k) => v !== null && s.lossMask[k] === 1));
}

/**
 * A row that recorded no sampled logprobs, shown through lane `name` instead: the lane's values
 * in place of the trained tokens' logprobs, so the heatmap, the logprob chart and the
 * low-confidence search read it (docs/mismatch.md#a-row-without-sampled-logprobs). Undefined
 * when the row has sampled logprobs or no such lane. Token index space: the flat sequence.
 */
export function laneInPlaceOfSampled(t: Trajectory, name: string): Trajectory | undefined {
  const lane = t.logprobLanes?.[name];
  if (lane === undefined || hasSampledLogprobs(t)) return undefined;
  let start = 0;
  const segments = t.segments.map((s) => {
    const from = start;
    start += s.tokenIds.length;
    if (!s.lossMask.includes(1)) return s;
    const logprobs = s.logprobs.map((v, k) => (s.lossMask[k] === 1 ? (lane[from + k] ?? null) : v));
    return { ...s, logprobs };
  });
  return { ...t, segments };
}

/**
 * Every lane name `laneValues` resolves: `sampled`, the stored lanes, then metadata keys holding
 * a per-token numeric array as long as the trajectory, or one such list per row of a group record
 * (with at least one number).
 */
export function laneNames(t: Trajectory): string[] {
  const names = [SAMPLED_LANE, ...Object.keys(t.logprobLanes ?? {})];
  const n = tokenCount(t.segments);
  if (n === 0) return names;
  for (const [key, value] of Object.entries(t.metadata)) {
    if (names.includes(key)) continue;
    const lane = ownMetadataLane(t, value, n);
    if (lane?.some((v) => v !== null)) names.push(key);
  }
  return names;
}
