import { z } from "zod";
import { laneInfoFromWire, laneInfoWireSchema } from "../core/formats/lanesWire";
import { writeRolloutLens } from "../core/formats/rolloutLens";
import { logprobsSchema } from "../core/formats/wireSchemas";
import type { LaneInfo, LaneValues, Trajectory } from "../core/trajectory/types";
import { postJson } from "./http";

const rescoreReplySchema = z.object({
  lane: logprobsSchema,
  info: laneInfoWireSchema,
  tokens: z.number(),
});

/** What `POST /api/rescore` scores: a stored or live episode by id, or a trajectory as a record. */
export type RescoreTarget = { readonly episodeId: string } | { readonly trajectory: Trajectory };

export interface RescoredLane {
  readonly values: LaneValues;
  readonly info: LaneInfo;
}

/**
 * What the server needs of a trajectory to rescore it: its exact ids (segment by segment) and
 * sampling parameters; logprobs, top-k, text and metadata are left out to keep the body small (a
 * 32k-token trajectory is then well under the server's body limit).
 */
function scoringRecord(t: Trajectory) {
  return writeRolloutLens({
    id: t.id,
    source: t.source,
    format: t.format,
    status: t.status,
    ...(t.model === undefined ? {} : { model: t.model }),
    ...(t.tokenizer === undefined ? {} : { tokenizer: t.tokenizer }),
    ...(t.samplingParams === undefined ? {} : { samplingParams: t.samplingParams }),
    metadata: {},
    segments: t.segments.map((s) => ({
      kind: s.kind,
      turn: s.turn,
      tokenIds: s.tokenIds,
      lossMask: s.lossMask,
      logprobs: s.logprobs.map(() => null),
    })),
  });
}

/**
 * The `rescored` lane of a trajectory (docs/mismatch.md): an episode is scored by id, anything
 * else (a file row, a local file) is sent as its rollout-lens/v1 record, exact ids and sampling
 * parameters included, so the server sends exactly those ids to SGLang. A 409 (ApiError) is the
 * server's family check refusing: `force` rescores anyway.
 */
export async function rescore(target: RescoreTarget, force = false): Promise<RescoredLane> {
  const body =
    "episodeId" in target
      ? { episodeId: target.episodeId, ...(force ? { force } : {}) }
      : { record: scoringRecord(target.trajectory), row: 0, ...(force ? { force } : {}) };
  const reply = await postJson("/api/rescore", body, rescoreReplySchema);
  return { values: reply.lane, info: laneInfoFromWire(reply.info) };
}
