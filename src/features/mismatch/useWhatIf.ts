import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { defaultChoices } from "../../core/mismatch/corrections/registry";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";

/**
 * Every correction replayed over the open file with its default thresholds (docs/mismatch.md
 * "Every correction replayed"), in the file's worker once the file was read to its end; run on
 * demand (`isAsked`), as it reads every line again.
 */
export function useWhatIf(
  fileId: string,
  client: RolloutFileClient | undefined,
  state: RolloutFileState | undefined,
  isAsked: boolean,
) {
  const choices = useMemo(defaultChoices, []);
  const rows = state?.rows.length ?? 0;
  return useQuery({
    queryKey: ["rollout-file", fileId, "what-if", rows, choices],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.corrections(choices);
    },
    enabled: isAsked && client !== undefined && state?.caughtUp === true,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}
