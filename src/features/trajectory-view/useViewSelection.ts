import { type RefObject, useCallback, useMemo } from "react";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import { tokenPosition } from "../../core/layout/tokenAnchor";
import type { TokenLayout } from "../../core/layout/tokenRows";
import { policyVersions, segmentPolicies } from "../../core/trajectory/policyVersions";
import type { Trajectory } from "../../core/trajectory/types";
import { useTokenAnchor } from "./useTokenAnchor";
import { useTokenSelection } from "./useTokenSelection";

/**
 * The selected token, kept in view through every re-layout (the deep link's, then each jump of
 * the view's own), with the view's ways to move it: a step (arrow keys) and a pick (charts, find).
 */
export function useViewSelection(
  list: {
    readonly scrollRef: RefObject<HTMLDivElement | null>;
    readonly layout: TokenLayout;
    readonly scrollToToken: (token: number) => void;
  },
  tokenCount: number,
  initialToken: number | undefined,
  onSelectToken: ((token: number) => void) | undefined,
) {
  const linked = tokenPosition(initialToken, tokenCount);
  const keepInView = useTokenAnchor(list.scrollRef, list.layout, linked, list.scrollToToken);
  const { selected, select } = useTokenSelection(
    tokenCount,
    initialToken,
    onSelectToken,
    keepInView,
  );
  const handleStep = (delta: number) => {
    const from = selected === undefined ? 0 : selected + delta;
    select(Math.min(tokenCount - 1, Math.max(0, from)), true);
  };
  const handlePick = useCallback((token: number) => select(token, true), [select]);
  return { selected, select, handleStep, handlePick };
}

/** The trajectory's policy versions and each segment's, for the strip and the segment headers. */
export function usePolicies(trajectory: Trajectory, flat: FlatTrajectory) {
  const versions = useMemo(() => policyVersions(trajectory), [trajectory]);
  const policies = useMemo(
    () => (versions ? segmentPolicies(versions, flat.segmentStarts) : undefined),
    [versions, flat],
  );
  return { versions, policies };
}
