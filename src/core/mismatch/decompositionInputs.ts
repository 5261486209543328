import { keptSetReader } from "../trajectory/keptSets";
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
 * Kept sets: `keptSetReader` (src/core/trajectory/keptSets.ts): the model segments' own (an
 * episode recorded from a server that returns them), slime's, verifiers'.
 */

const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

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
