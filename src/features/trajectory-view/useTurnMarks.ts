import { useMemo, useState } from "react";
import { type TurnReport, turnTokenMarks } from "../../core/drift/prefixCheck";

/**
 * The turn the token view marks: the first turn that breaks the prefix until the user picks
 * another, and its tokens' marks.
 */
export function useTurnMarks(report: TurnReport | undefined, tokenCount: number) {
  const [pickedTurn, setPickedTurn] = useState<number>();
  const shownTurn = pickedTurn ?? report?.turns.find((k) => k.class !== "CLEAN")?.turn;
  const turnMarks = useMemo(
    () =>
      report && shownTurn !== undefined ? turnTokenMarks(report, shownTurn, tokenCount) : undefined,
    [report, shownTurn, tokenCount],
  );
  return { shownTurn, setPickedTurn, turnMarks };
}
