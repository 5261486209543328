import { useEffect, useState } from "react";
import { type ColumnMapping, mappingProblem, schemaKey } from "../../core/formats/columnMapping";
import { prefsActions, rememberedColumnMapping } from "../../stores/prefsStore";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";

/** What the file page shows of a table's column mapping. */
export interface ColumnMappingView {
  /** The dialog is open: a table needs a mapping, or the user is changing it. */
  readonly isOpen: boolean;
  /** The table can be re-read through another mapping (read to its end through one already). */
  readonly canChange: boolean;
  open(): void;
  close(): void;
  apply(mapping: ColumnMapping): void;
}

/**
 * A table no known producer wrote: applies the mapping remembered for its schema at once, else
 * opens the dialog; an applied mapping is remembered for the schema (prefsStore, localStorage).
 */
export function useColumnMapping(
  client: RolloutFileClient | undefined,
  state: RolloutFileState | undefined,
): ColumnMappingView {
  const [isEditing, setEditing] = useState(false);
  const table = state?.table;
  const remembered =
    table && !table.mapping ? rememberedColumnMapping(schemaKey(table.columns)) : undefined;
  const fits = !!table && !!remembered && !mappingProblem(remembered, table.columns);
  useEffect(() => {
    if (client && remembered && fits) client.applyMapping(remembered);
  }, [client, remembered, fits]);
  return {
    isOpen: !!table && (isEditing || (!table.mapping && !fits)),
    canChange: !!table?.mapping && !!state?.caughtUp,
    open: () => setEditing(true),
    close: () => setEditing(false),
    apply: (mapping) => {
      if (!client || !table) return;
      prefsActions.columnMappingApplied(schemaKey(table.columns), mapping);
      client.applyMapping(mapping);
      setEditing(false);
    },
  };
}
