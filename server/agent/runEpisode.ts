import type { Trajectory } from "../../src/core/trajectory/types";
import type { StartEpisodeRequest } from "../../src/core/wire/episodes";
import type { EpisodeSink } from "./episodeSink";
import {
  appendToolResults,
  beginInput,
  countIteration,
  decideCutoff,
  type EpisodePrefix,
  endAfterTurn,
  failureEnding,
  finish,
  generateTurn,
  openRun,
  type RunnerDeps,
  runToolCalls,
} from "./episodeSteps";

export type { EpisodePrefix, RunnerDeps } from "./episodeSteps";

/**
 * Runs one agent episode with exact TITO tracking; resolves with the final trajectory, never throws.
 * Each turn: generate, end if it answered (or hit its length, or the upstream aborted), run its
 * tool calls, end if the limiter cuts off, append the tool results. With a `prefix` the episode
 * goes on from that token record instead of rendering the request's prompt.
 */
export async function runEpisode(
  deps: RunnerDeps,
  request: StartEpisodeRequest,
  sink: EpisodeSink,
  prefix?: EpisodePrefix,
): Promise<Trajectory> {
  const run = openRun(deps, request, sink, prefix);
  try {
    const refused = await beginInput(run, prefix !== undefined);
    if (refused) return finish(run, refused);
    for (;;) {
      const turn = await generateTurn(run);
      if (!("model" in turn)) return finish(run, turn);
      const ended = endAfterTurn(run, turn);
      if (ended) return finish(run, ended);
      const decision = countIteration(run, turn);
      const results = await runToolCalls(run, turn);
      const cutoff = decideCutoff(run, decision, results);
      if (cutoff) return finish(run, cutoff);
      await appendToolResults(run, results);
    }
  } catch (error) {
    return finish(run, failureEnding(run, error));
  }
}
