import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { hashIds, tokenizerQueries } from "../api/tokenizers";
import { hasTurnsToCheck, type TurnReport } from "../core/drift/prefixCheck";
import type { Trajectory } from "../core/trajectory/types";

/**
 * The per-turn prefix check of `trajectory` with `tokenizer`, from the tokenizer worker: undefined
 * while it runs, without a tokenizer, for a running episode (it would be redone on every token) and
 * for records with nothing to check (no assistant message or no model segment).
 */
export function useTurnChecks(
  tokenizer: string | undefined,
  trajectory: Trajectory | undefined,
): {
  readonly report: TurnReport | undefined;
  readonly error: string | undefined;
  /** Asked and not answered yet: the strip keeps its line so the tokens below do not move. */
  readonly isPending: boolean;
} {
  const enabled =
    tokenizer !== undefined &&
    trajectory !== undefined &&
    trajectory.status !== "running" &&
    hasTurnsToCheck(trajectory);
  const idsHash = useMemo(
    () => (enabled ? hashIds(trajectory.segments.flatMap((s) => s.tokenIds)) : ""),
    [enabled, trajectory],
  );
  const query = useQuery({
    ...tokenizerQueries.turns(tokenizer ?? "", trajectory ?? EMPTY, idsHash),
    enabled,
  });
  return {
    report: enabled ? query.data : undefined,
    error: enabled && query.error ? query.error.message : undefined,
    isPending: enabled && query.isPending,
  };
}

const EMPTY: Trajectory = {
  id: "",
  source: { kind: "live" },
  format: "rollout-lens/v1",
  status: "completed",
  segments: [],
  metadata: {},
};
