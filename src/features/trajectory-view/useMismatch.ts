import { useMutation } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { ApiError } from "../../api/http";
import { type RescoreTarget, rescore } from "../../api/rescore";
import { defaultChoices } from "../../core/mismatch/corrections/registry";
import { trajectoryReplays } from "../../core/mismatch/corrections/replayRows";
import type { Decomposition } from "../../core/mismatch/decomposition";
import { trajectoryDecomposition } from "../../core/mismatch/decompositionInputs";
import type { Correction, MismatchResult } from "../../core/mismatch/mismatch";
import { type RoutingView, routingView } from "../../core/mismatch/routing";
import { defaultLanes, trajectoryMismatch } from "../../core/mismatch/trajectoryMismatch";
import { tokenCount } from "../../core/trajectory/flatten";
import {
  laneInPlaceOfSampled,
  laneNames,
  laneValues,
  SAMPLED_LANE,
  withLane,
} from "../../core/trajectory/lanes";
import type { LaneValues, Trajectory } from "../../core/trajectory/types";
import {
  prefsActions,
  useCorrection,
  useIsMismatch,
  useMismatchExtent,
} from "../../stores/prefsStore";
import type { TrajectoryReplays } from "./TokenCorrections";
import type { MismatchShading } from "./tokenCells";

/** Trajectories up to this many tokens replay every correction as mismatch mode opens. */
export const EAGER_REPLAY_TOKENS = 32_768;

/** The lane a rescore adds (server/rescore). */
export const RESCORED_LANE = "rescored";

/** The two lanes compared, with their values: what the details card shows per token. */
export interface LanePair {
  readonly names: readonly [string, string];
  readonly a: LaneValues;
  readonly b: LaneValues;
}

export interface RescoreState {
  readonly run: () => void;
  /** Rescores although the server's family check refused (set after a 409). */
  readonly runAnyway: (() => void) | undefined;
  readonly isPending: boolean;
  readonly error: string | undefined;
  /** Set once a rescored lane is shown: where it came from. */
  readonly done: string | undefined;
}

export interface MismatchView {
  /** Every lane the trajectory (with a rescored lane, once there is one) offers. */
  readonly laneNames: readonly string[];
  readonly pair: LanePair | undefined;
  readonly onLanesChange: (lanes: readonly [string, string]) => void;
  readonly correction: Correction;
  /** Mismatch mode on: the comparison of the pair, or why there is none. */
  readonly outcome:
    | { readonly ok: true; readonly result: MismatchResult }
    | { readonly ok: false; readonly message: string }
    | undefined;
  /** What the token rows shade by (mismatch mode with a comparison), else undefined. */
  readonly shading: MismatchShading | undefined;
  /** The correction's verdict per token, for the details card (one object per comparison). */
  readonly verdicts: { readonly correction: Correction; readonly verdict: Uint8Array } | undefined;
  /** Mismatch mode: every correction replayed on the trajectory, for the token details. */
  readonly replays: TrajectoryReplays | undefined;
  /** Set while a long trajectory's replays wait to be asked for: asks for them. */
  readonly onAskReplays: (() => void) | undefined;
  /** Mismatch mode: the MoE routing the record carries, compared when there are two arrays. */
  readonly routing: RoutingView | undefined;
  /** Mismatch mode: δ split into temperature, support and residual per token. */
  readonly decomposition: Decomposition | undefined;
  readonly rescore: RescoreState;
  /** The trajectory with its rescored lane, once there is one. */
  readonly scored: Trajectory;
  /**
   * A row with no sampled logprobs and a rescored lane: the lane shown on its own (heatmap, chart,
   * low-confidence search read `shown`); undefined otherwise.
   */
  readonly solo: string | undefined;
  /** What the view draws: `trajectory`, or the solo lane in place of the sampled logprobs. */
  readonly shown: Trajectory;
}

/**
 * The rescored lane: SGLang scores the trajectory's ids on demand (`rescore.run`), and the lane is
 * added to the trajectory (`scored`) while it still fits its length.
 */
function useRescoredLane(
  trajectory: Trajectory,
  rescoreTarget: RescoreTarget,
  onRescored: () => void,
): { readonly scored: Trajectory; readonly rescore: RescoreState } {
  const mutation = useMutation({
    mutationFn: (force: boolean) => rescore(rescoreTarget, force),
    onSuccess: onRescored,
  });
  const lane = mutation.data;
  // A live trajectory may have grown since it was rescored: a lane of another length is not shown.
  const isLaneCurrent =
    lane !== undefined && lane.values.length === tokenCount(trajectory.segments);
  const scored = useMemo(
    () =>
      lane && isLaneCurrent
        ? withLane(trajectory, RESCORED_LANE, lane.values, lane.info)
        : trajectory,
    [trajectory, lane, isLaneCurrent],
  );
  const info = lane?.info;
  const { mutate, isPending, error } = mutation;
  const run = useCallback(() => mutate(false), [mutate]);
  const isRefused = error instanceof ApiError && error.status === 409;
  const forced = useCallback(() => mutate(true), [mutate]);
  const runAnyway = isRefused ? forced : undefined;
  const done =
    info && isLaneCurrent
      ? [info.model, info.weightVersion && `weights ${info.weightVersion}`]
          .filter(Boolean)
          .join(" · ") || info.source
      : undefined;
  const message = error?.message;
  const state = useMemo(
    () => ({ run, runAnyway, isPending, error: message, done }),
    [run, runAnyway, isPending, message, done],
  );
  return { scored, rescore: state };
}

/** The two lanes compared: `picked` while `scored` has both, else `defaultLanes`; with their values. */
function useLanePair(scored: Trajectory, picked: readonly [string, string] | undefined) {
  const names = useMemo(() => laneNames(scored), [scored]);
  const lanes =
    picked && names.includes(picked[0]) && names.includes(picked[1])
      ? picked
      : defaultLanes(scored);
  const [nameA, nameB] = lanes ?? ["", ""];
  const pair = useMemo(() => {
    if (!nameA || !nameB) return undefined;
    const a = laneValues(scored, nameA);
    const b = laneValues(scored, nameB);
    return a && b ? { names: [nameA, nameB] as const, a, b } : undefined;
  }, [scored, nameA, nameB]);
  return { names, nameA, nameB, pair };
}

/**
 * Mismatch mode: lanes `nameA` and `nameB` of `scored` compared with `correction` replayed, or why
 * not (a solo lane, a single lane); the rows' shading and the per-token verdicts it gives.
 */
function useComparison(
  scored: Trajectory,
  [nameA, nameB]: readonly [string, string],
  solo: string | undefined,
  correction: Correction,
) {
  const isMismatch = useIsMismatch();
  const extent = useMismatchExtent();
  const outcome = useMemo((): MismatchView["outcome"] => {
    if (!isMismatch) return undefined;
    if (solo !== undefined) {
      return {
        ok: false as const,
        message:
          "this row records no sampled logprobs to compare with: the rescored lane is shown on its own (heatmap, chart, Next low-confidence)",
      };
    }
    if (!nameA || !nameB) {
      return { ok: false as const, message: "only the sampled logprobs: Rescore to compare them" };
    }
    return trajectoryMismatch(scored, [nameA, nameB], correction);
  }, [isMismatch, scored, nameA, nameB, correction, solo]);
  const shading = useMemo(
    () =>
      outcome?.ok
        ? { delta: outcome.result.delta, verdict: outcome.result.verdict, extent }
        : undefined,
    [outcome, extent],
  );
  const verdicts = useMemo(
    () => (outcome?.ok ? { correction, verdict: outcome.result.verdict } : undefined),
    [outcome, correction],
  );
  return { outcome, shading, verdicts };
}

/**
 * Every correction replayed on the compared lanes, for the token details: at once up to
 * `EAGER_REPLAY_TOKENS`; a longer trajectory waits for `onAskReplays` (16 passes on the main thread).
 */
function useReplays(
  scored: Trajectory,
  [nameA, nameB]: readonly [string, string],
  outcome: MismatchView["outcome"],
) {
  const [isReplayAsked, setReplayAsked] = useState(false);
  const isReplayDeferred =
    outcome?.ok === true && outcome.result.delta.length > EAGER_REPLAY_TOKENS && !isReplayAsked;
  const replays = useMemo(() => {
    if (!outcome?.ok || !nameA || !nameB || isReplayDeferred) return undefined;
    const r = trajectoryReplays(scored, [nameA, nameB], defaultChoices());
    return typeof r === "string" ? undefined : r;
  }, [outcome, scored, nameA, nameB, isReplayDeferred]);
  const askReplays = useCallback(() => setReplayAsked(true), []);
  return { replays, onAskReplays: isReplayDeferred ? askReplays : undefined };
}

/**
 * The mismatch view's state (docs/mismatch.md): the rescored lane fetched on demand, the two lanes
 * compared (chosen, else `defaultLanes`), and, in mismatch mode, the comparison with the chosen
 * correction replayed, as shading for the rows.
 */
export function useMismatch(trajectory: Trajectory, rescoreTarget: RescoreTarget): MismatchView {
  const correction = useCorrection();
  const [picked, setPicked] = useState<readonly [string, string]>();
  const { scored, rescore } = useRescoredLane(trajectory, rescoreTarget, () => {
    setPicked([RESCORED_LANE, SAMPLED_LANE]);
    prefsActions.mismatchShown();
  });
  const soloShown = useMemo(() => laneInPlaceOfSampled(scored, RESCORED_LANE), [scored]);
  const solo = soloShown ? RESCORED_LANE : undefined;
  const { names, nameA, nameB, pair } = useLanePair(scored, picked);
  const compared = [nameA, nameB] as const;
  const { outcome, shading, verdicts } = useComparison(scored, compared, solo, correction);
  const { replays, onAskReplays } = useReplays(scored, compared, outcome);
  const routing = useMemo(
    () => (outcome?.ok ? routingView(scored, outcome.result.delta) : undefined),
    [outcome, scored],
  );
  const decomposition = useMemo(() => {
    if (!outcome?.ok || !nameA || !nameB) return undefined;
    const split = trajectoryDecomposition(scored, [nameA, nameB]);
    return split.ok ? split.result : undefined;
  }, [outcome, scored, nameA, nameB]);
  // One object while nothing changes: the panel and the toolbar are memoized on it.
  return useMemo(
    () => ({
      laneNames: names,
      pair,
      onLanesChange: setPicked,
      correction,
      outcome,
      shading,
      verdicts,
      replays,
      onAskReplays,
      routing,
      decomposition,
      rescore,
      scored,
      solo,
      shown: soloShown ?? trajectory,
    }),
    [
      names,
      pair,
      correction,
      outcome,
      shading,
      verdicts,
      replays,
      onAskReplays,
      routing,
      decomposition,
      rescore,
      scored,
      solo,
      soloShown,
      trajectory,
    ],
  );
}
