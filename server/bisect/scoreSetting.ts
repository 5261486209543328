import { cotenantsOf, type RescoreSetting } from "../../src/core/bisect/knobs";
import { laneAt } from "../../src/core/bisect/laneAt";
import type { TopLogprob } from "../../src/core/trajectory/types";
import type { RescoreRequest, RescoreResult } from "../sglang/rescore";
import type { SglangClient } from "../sglang/sglangClient";

/** What the bisect lab asks of an upstream's client (the one SGLang client; tests may pass a fake). */
export type BisectClient = Pick<
  SglangClient,
  "rescore" | "rescoreBatch" | "modelInfo" | "serverInfo"
>;

/** The fixed ids, their trained mask and how each rescore is asked. */
export interface ScoreTarget {
  readonly ids: readonly number[];
  readonly mask: readonly number[];
  readonly samplingSeed?: number;
  /** Alternatives asked per position for the top_p knob. */
  readonly topLogprobs: number;
  /** Token-by-token scoring stops after this many trained tokens (one call each). */
  readonly decodeMaxTokens: number;
}

/** A knob's lane, the upstream that answered and what the reader should know about it. */
export interface ScoredLane {
  readonly lane: (number | null)[];
  readonly upstream: string;
  readonly notes: string[];
}

interface Raw {
  lane: (number | null)[];
  top?: (readonly TopLogprob[] | null)[];
  upstream: string;
  notes: string[];
}

/** Whether the lane is derived from the top-k (another temperature, or a kept set). */
function needsTopK(s: RescoreSetting): boolean {
  return s.temperature !== 1 || s.truncation !== undefined;
}

/** The server always scores at T = 1 (see RescoreSetting.temperature). */
function request(t: ScoreTarget, s: RescoreSetting, ids: readonly number[]): RescoreRequest {
  return {
    inputIds: ids,
    temperature: 1,
    ...(t.samplingSeed === undefined ? {} : { samplingSeed: t.samplingSeed }),
    ...(needsTopK(s) ? { topLogprobsNum: t.topLogprobs } : {}),
  };
}

/** One call per trained token t ≥ 1: ids[..t] with logprob_start_len t − 1, the prefix cached. */
async function decodeScore(
  client: BisectClient,
  t: ScoreTarget,
  s: RescoreSetting,
  signal?: AbortSignal,
): Promise<Raw> {
  const lane: (number | null)[] = new Array(t.ids.length).fill(null);
  const top: (readonly TopLogprob[] | null)[] = new Array(t.ids.length).fill(null);
  const trained = t.mask.flatMap((m, k) => (m === 1 && k >= 1 ? [k] : []));
  const positions = trained.slice(0, t.decodeMaxTokens);
  let upstream = "";
  for (const k of positions) {
    const r: RescoreResult = await client.rescore(
      { ...request(t, s, t.ids.slice(0, k + 1)), logprobStartLen: k - 1 },
      { signal },
    );
    lane[k] = r.lane[k] ?? null;
    top[k] = r.topLogprobs?.[k] ?? null;
    upstream = r.upstream;
  }
  const notes =
    positions.length < trained.length
      ? [
          `scored the first ${positions.length} of ${trained.length} trained tokens one call each (--decode-max-tokens); the rest count as missing`,
        ]
      : [];
  return { lane, top, upstream, notes };
}

async function prefillScore(
  client: BisectClient,
  t: ScoreTarget,
  s: RescoreSetting,
  signal?: AbortSignal,
): Promise<Raw> {
  if (s.cotenants === 0) {
    const r = await client.rescore(request(t, s, t.ids), { signal });
    return { lane: r.lane, top: r.topLogprobs, upstream: r.upstream, notes: [] };
  }
  const others = cotenantsOf(t.ids, s.cotenants).map((ids) => request(t, s, ids));
  const [r] = await client.rescoreBatch([request(t, s, t.ids), ...others], { signal });
  if (r === undefined) throw new Error("the batch answered no item for the target");
  return { lane: r.lane, top: r.topLogprobs, upstream: r.upstream, notes: [] };
}

/** The lane at the setting's temperature and kept set at every trained token (null where outside it). */
function derive(raw: Raw, t: ScoreTarget, s: RescoreSetting): Raw {
  const lane = [...raw.lane];
  let inexact = 0;
  let outside = 0;
  let noTop = 0;
  for (let k = 0; k < lane.length; k++) {
    const value = lane[k];
    if (t.mask[k] !== 1 || value === null || value === undefined) continue;
    const alts = raw.top?.[k];
    if (!alts) {
      noTop++;
      lane[k] = null;
      continue;
    }
    const r = laneAt(value, t.ids[k] ?? -1, alts, s);
    if (r.kind === "outside") {
      outside++;
      lane[k] = null;
    } else {
      lane[k] = r.logprob;
      if (!r.isExact) inexact++;
    }
  }
  const notes = [...raw.notes];
  if (inexact > 0)
    notes.push(
      `${inexact} token(s) approximate: the top-${t.topLogprobs} alternatives do not hold the whole support (or end before top_p/top_k close the kept set)`,
    );
  if (outside > 0) notes.push(`${outside} token(s) outside the kept set: missing, not compared`);
  if (noTop > 0) notes.push(`${noTop} token(s) without alternatives from the server: missing`);
  return { ...raw, lane, notes };
}

/** Rescores the fixed ids under one setting through the upstream's client. */
export async function scoreSetting(
  client: BisectClient,
  t: ScoreTarget,
  s: RescoreSetting,
  signal?: AbortSignal,
): Promise<ScoredLane> {
  if (s.mode === "decode" && s.cotenants > 0)
    throw new Error("token-by-token scoring inside a batch is not a knob: change one at a time");
  const raw =
    s.mode === "decode"
      ? await decodeScore(client, t, s, signal)
      : await prefillScore(client, t, s, signal);
  const done = needsTopK(s) ? derive(raw, t, s) : raw;
  return { lane: done.lane, upstream: done.upstream, notes: done.notes };
}
