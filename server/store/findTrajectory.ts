import { readRolloutLens } from "../../src/core/formats/rolloutLens";
import type { Trajectory } from "../../src/core/trajectory/types";

/** Where episodes are found: the running (or just finished) ones, then the data file's. */
export interface EpisodeLookup {
  /** The trajectory of a live or recently finished episode (EpisodeManager.trajectory). */
  readonly liveTrajectory: (id: string) => Trajectory | undefined;
  /** A finished episode of the data file, as its stored rollout-lens/v1 object. */
  readonly findStored: (id: string) => Promise<unknown | undefined>;
}

/** An episode by id, or that there is none, or that its stored line does not read back. */
export type FoundEpisode =
  | { readonly kind: "found"; readonly trajectory: Trajectory; readonly isLive: boolean }
  | { readonly kind: "unknown" }
  | {
      readonly kind: "unreadable";
      readonly error: { readonly message: string; readonly field?: string | undefined };
    };

/**
 * The one lookup of "an episode by id, live or stored" (forks, rescoring, the ATIF export): the
 * live trajectory first (status `running` while it runs), else the stored line read back as
 * rollout-lens/v1. Each caller words the misses its own way.
 */
export async function findTrajectory(lookup: EpisodeLookup, id: string): Promise<FoundEpisode> {
  const live = lookup.liveTrajectory(id);
  if (live) return { kind: "found", trajectory: live, isLive: true };
  const stored = await lookup.findStored(id);
  if (!stored) return { kind: "unknown" };
  return readStoredEpisode(stored);
}

/** A stored rollout-lens/v1 object read back into its trajectory. */
export function readStoredEpisode(stored: unknown): FoundEpisode {
  const read = readRolloutLens(stored, { line: 0 });
  if (!read.ok) return { kind: "unreadable", error: read.error };
  const [trajectory] = read.trajectories;
  if (!trajectory) return { kind: "unreadable", error: { message: "no trajectory" } };
  return { kind: "found", trajectory, isLive: false };
}
