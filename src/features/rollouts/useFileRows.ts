import { useMemo } from "react";
import {
  type DriftByRow,
  type MismatchByRow,
  type RowQuery,
  selectRows,
} from "../../core/files/rowQuery";
import type { RolloutFileState } from "../../workers/rolloutFileClient";

/** Row indices of the file that pass the query, in its order (recomputed as rows arrive). */
export function useFileOrder(
  state: RolloutFileState | undefined,
  query: RowQuery,
  drift?: DriftByRow,
  mismatch?: MismatchByRow,
): number[] {
  const version = state?.version;
  // Drift changes while a scan streams in: only a query that filters or sorts by it recomputes.
  const driftInUse = query.drift !== undefined || query.sort === "drift" ? drift : undefined;
  const mismatchInUse =
    query.mismatchAbove !== undefined || query.sort === "mismatch" ? mismatch : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows grow in place; version marks growth
  return useMemo(
    () => (state ? selectRows(state.rows, query, driftInUse, mismatchInUse) : []),
    [version, query, driftInUse, mismatchInUse],
  );
}
