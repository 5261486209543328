import { useQuery } from "@tanstack/react-query";
import {
  CORRECTION_RULES,
  type CorrectionChoice,
  choose,
} from "../../core/mismatch/corrections/registry";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";

/** Thresholds the user set, per correction name (the rest keep their defaults). */
export type ThresholdEdits = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** Every correction with the edited thresholds over its defaults (an invalid edit is ignored). */
export function whatIfChoices(edits: ThresholdEdits): CorrectionChoice[] {
  return CORRECTION_RULES.map((r) => {
    const c = choose(r.name, edits[r.name] ?? {});
    return typeof c === "string" ? (choose(r.name) as CorrectionChoice) : c;
  });
}

/**
 * Every correction replayed over the open file (docs/mismatch.md "Every correction replayed"),
 * with `choices`' thresholds, in the file's worker once the file was read to its end; run on
 * demand (`isAsked`), as it reads every line again.
 */
export function useWhatIf(
  fileId: string,
  client: RolloutFileClient | undefined,
  state: RolloutFileState | undefined,
  isAsked: boolean,
  choices: readonly CorrectionChoice[],
) {
  const rows = state?.rows.length ?? 0;
  return useQuery({
    queryKey: ["rollout-file", fileId, "what-if", rows, choices],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.corrections(choices);
    },
    enabled: isAsked && client !== undefined && state?.caughtUp === true,
    staleTime: Number.POSITIVE_INFINITY,
    // The table stays while a threshold edit replays.
    placeholderData: (previous) => previous,
    retry: false,
  });
}
