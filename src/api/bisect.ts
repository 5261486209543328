import { z } from "zod";
import { type BisectBundle, bundleSchema } from "../core/bisect/bundle";
import type { KnobName } from "../core/bisect/knobs";
import { writeRolloutLens } from "../core/formats/rolloutLens";
import type { Trajectory } from "../core/trajectory/types";
import { postJson } from "./http";

const bisectReplySchema = z.object({ bundle: bundleSchema });

/** What `POST /api/bisect` runs on: an episode by id, or a trajectory sent as its record. */
export type BisectTarget = { readonly episodeId: string } | { readonly trajectory: Trajectory };

/**
 * The bisect lab's run (docs/bisect.md): the server rescores the row's fixed ids once per knob
 * through its SGLang client and answers the repro bundle; the table is computed from it here with
 * the same core function the CLI uses. A file row goes as its rollout-lens/v1 record, sampled
 * logprobs included (the baseline).
 */
export async function runBisect(
  target: BisectTarget,
  knobs?: readonly KnobName[],
): Promise<BisectBundle> {
  const chosen = knobs === undefined ? {} : { knobs };
  const body =
    "episodeId" in target
      ? { episodeId: target.episodeId, ...chosen }
      : { record: writeRolloutLens(target.trajectory), row: 0, ...chosen };
  return (await postJson("/api/bisect", body, bisectReplySchema)).bundle;
}
