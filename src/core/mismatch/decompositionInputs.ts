import { laneValues, SAMPLED_LANE } from "../trajectory/lanes";
import type { Trajectory } from "../trajectory/types";
import {
  type Decomposition,
  type DecompositionInput,
  decomposeMismatch,
  isFiltering,
  type LaneConvention,
  type SamplingFilter,
  type TopEntry,
} from "./decomposition";

/*
 * What a trajectory says about how its lanes were produced, for the decomposition
 * (docs/mismatch.md "Decomposition"):
 *
 * - `sampled`: at the recorded sampling temperature (SGLang reports temperature-scaled logprobs,
 *   docs/sglang.md); renormalised over the kept set when the record carries one (slime's SGLang top-p
 *   patch returns the kept ids with renormalised logprobs, `renorm_logprob_over_top_p`), or when
 *   vLLM's `logprobs_mode` says `processed_logprobs` (`raw_logprobs`: T = 1, not renormalised);
 *   not renormalised in an episode Rollout Lens recorded from SGLang (its `calls` kept: stock
 *   SGLang reports before filtering), nor when the sampling params filter nothing; otherwise
 *   unknown.
 * - `rescored`: SGLang prompt scoring, T = 1, full support.
 * - any other lane: unknown, unless the caller says (`conventions`).
 *
 * The top-k is the sampled lane's (SGLang's: at the sampling temperature, before filtering).
 * Kept sets: slime's `rollout_top_p_token_ids` cut by `rollout_top_p_token_offsets` (one entry
 * per response token, the response starting after the prompt segment), verifiers'
 * `kept_tokens` ({ids, counts}, counts per sampled token), the simulator's
 * `top_p_kept_token_ids` / `_offsets` kept as `rollout_top_p_…` by the recorder.
 */

const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

const isNumbers = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((n) => typeof n === "number");

/** The sampling filter the record states, or undefined when it states no sampling params. */
export function samplingFilter(t: Trajectory): SamplingFilter | undefined {
  const p = t.samplingParams;
  if (!p) return undefined;
  return { topP: num(p.top_p) ?? 1, topK: num(p.top_k) ?? -1, minP: num(p.min_p) ?? 0 };
}

/** The recorded sampling temperature (SGLang's default 1 is not assumed). */
export function samplingTemperature(t: Trajectory): number | undefined {
  return num(t.samplingParams?.temperature);
}

/** Per token, the kept set the record carries, or undefined when it carries none there. */
export function keptSetReader(
  t: Trajectory,
): ((token: number) => number[] | undefined) | undefined {
  const m = t.metadata;
  const first = t.segments[0];
  const promptLength = first?.kind === "prompt" ? first.tokenIds.length : 0;
  const ids = m.rollout_top_p_token_ids;
  const offsets = m.rollout_top_p_token_offsets;
  if (isNumbers(ids) && isNumbers(offsets)) {
    return (token) => {
      const r = token - promptLength;
      const from = offsets[r];
      const to = offsets[r + 1];
      if (r < 0 || from === undefined || to === undefined || to <= from) return undefined;
      return ids.slice(from, to);
    };
  }
  return verifiersKept(t, m.kept_tokens);
}

/**
 * verifiers' `kept_tokens` (`verifiers/v1/types.py` KeptTokens): `ids` flat in position order,
 * `counts` per token, 0 = none; a node's counts run over its sampled (mask 1) tokens, a trace's
 * (`Trace.kept_tokens`) over every token. Other lengths are not read.
 */
function verifiersKept(t: Trajectory, value: unknown) {
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

/** How lane `name` of `t` was produced, as far as the record says (see the top). */
export function laneConvention(t: Trajectory, name: string): LaneConvention {
  if (name === "rescored") return { temperature: 1, renormalized: false };
  if (name !== SAMPLED_LANE) return {};
  const mode = t.samplingParams?.logprobs_mode;
  const temperature = samplingTemperature(t);
  if (mode === "raw_logprobs") return { temperature: 1, renormalized: false };
  if (mode === "processed_logprobs") return { temperature, renormalized: true };
  if (keptSetReader(t)) return { temperature, renormalized: true };
  // An episode Rollout Lens recorded from SGLang's /generate (its calls kept): stock SGLang
  // reports logprobs before top-p/top-k filtering (docs/sglang.md), and the kept set it did not return.
  if (t.format === "rollout-lens/v1" && (t.calls?.length ?? 0) > 0) {
    return { temperature, renormalized: false };
  }
  const filter = samplingFilter(t);
  const isPlain = filter && filter.topP >= 1 && filter.topK < 1 && filter.minP <= 0;
  return isPlain ? { temperature, renormalized: false } : { temperature };
}

/** The sampled lane's top-k per token, flat (token index space). */
function topKOf(t: Trajectory): (readonly TopEntry[] | null)[] {
  const out: (readonly TopEntry[] | null)[] = [];
  for (const s of t.segments) {
    const top = s.topLogprobs;
    for (let i = 0; i < s.tokenIds.length; i++) out.push(top?.[i] ?? null);
  }
  return out;
}

const topKTemperature = (t: number | undefined) => (t === undefined ? {} : { topKTemperature: t });

/** Conventions the caller states for lanes the record says nothing about (a trainer lane). */
export type LaneConventions = Readonly<Record<string, LaneConvention>>;

/**
 * Without a temperature for one of the lanes every token's temperature term is unknown, and the
 * row is unchecked whatever the top-k says: its unknown counts, for a file scan that need not
 * walk its tokens (`compared` as the mismatch counts it). Undefined when the terms may be known.
 */
export function unknownRowCounts(
  t: Trajectory,
  lanes: readonly [string, string],
  compared: number,
): { unknownTemperature: number; unknownSupport: number } | undefined {
  const a = laneConvention(t, lanes[0]);
  const b = laneConvention(t, lanes[1]);
  if (a.temperature !== undefined && b.temperature !== undefined) return undefined;
  const filter = samplingFilter(t);
  const isPlain = filter !== undefined && !isFiltering(filter) && !keptSetReader(t);
  const isSupportKnown = (c: LaneConvention) => c.renormalized === false || isPlain;
  const unknownSupport = isSupportKnown(a) && isSupportKnown(b) ? 0 : compared;
  return { unknownTemperature: compared, unknownSupport };
}

/** The decomposition of lane a against lane b over `t`'s trained tokens, or why not. */
export function trajectoryDecomposition(
  t: Trajectory,
  lanes: readonly [string, string],
  conventions: LaneConventions = {},
): { ok: true; result: Decomposition } | { ok: false; message: string } {
  const [nameA, nameB] = lanes;
  const a = laneValues(t, nameA);
  const b = laneValues(t, nameB);
  if (!a || !b) return { ok: false, message: `no lane ${a ? nameB : nameA}` };
  const tokenIds: number[] = [];
  const mask: number[] = [];
  for (const s of t.segments) {
    tokenIds.push(...s.tokenIds);
    mask.push(...s.lossMask);
  }
  const convention = (name: string) => conventions[name] ?? laneConvention(t, name);
  const kept = keptSetReader(t);
  const filter = samplingFilter(t);
  const temperature = samplingTemperature(t);
  const input: DecompositionInput = {
    a,
    b,
    mask,
    tokenIds,
    laneA: convention(nameA),
    laneB: convention(nameB),
    topK: topKOf(t),
    ...topKTemperature(convention(SAMPLED_LANE).temperature),
    ...(kept ? { kept } : {}),
    ...(filter ? { filter } : {}),
    ...(temperature !== undefined ? { samplingTemperature: temperature } : {}),
  };
  return { ok: true, result: decomposeMismatch(input) };
}
