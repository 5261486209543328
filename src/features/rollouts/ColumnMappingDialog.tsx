import { useState } from "react";
import { type ColumnMapping, mappingProblem } from "../../core/formats/columnMapping";
import styles from "./ColumnMappingDialog.module.css";

/** The fields of each layout: [mapping key, label, required]. */
const FIELDS = {
  full: [
    ["tokenIds", "token ids (every token)", true],
    ["lossMask", "loss mask (0/1 per token)", false],
    ["logprobs", "logprobs (per token)", false],
    ["promptLength", "prompt length (without a mask)", false],
    ["reward", "reward", false],
  ],
  split: [
    ["promptTokenIds", "prompt token ids", true],
    ["responseTokenIds", "response token ids", true],
    ["responseLogprobs", "response logprobs", false],
    ["responseMask", "response loss mask", false],
    ["reward", "reward", false],
  ],
} as const;

type Layout = ColumnMapping["layout"];
type Draft = Partial<Record<string, string>>;

function draftOf(mapping: ColumnMapping | undefined): Draft {
  if (!mapping) return {};
  const { layout: _layout, ...fields } = mapping;
  return fields;
}

/** The draft as a mapping of `layout`, or undefined while a required column is not chosen. */
function mappingOf(layout: Layout, draft: Draft): ColumnMapping | undefined {
  const fields: Record<string, string> = { layout };
  for (const [key, , required] of FIELDS[layout]) {
    const column = draft[key];
    if (column) fields[key] = column;
    else if (required) return undefined;
  }
  // Unchosen fields are left out: the mapping is stored as JSON.
  return fields as unknown as ColumnMapping;
}

export interface ColumnMappingDialogProps {
  readonly fileName: string;
  readonly columns: readonly string[];
  /** Where the form starts: the current mapping, else the suggested one. */
  readonly initial: ColumnMapping | undefined;
  readonly onApply: (mapping: ColumnMapping) => void;
  /** Absent while the table cannot be read without a mapping. */
  readonly onCancel?: () => void;
}

/**
 * A Parquet, JSON or JSONL table no known producer wrote: which columns hold the token ids, mask,
 * logprobs and reward. Starts from the suggestion (columnMapping.ts), editable, applied on submit.
 */
export function ColumnMappingDialog({
  fileName,
  columns,
  initial,
  onApply,
  onCancel,
}: ColumnMappingDialogProps) {
  const [layout, setLayout] = useState<Layout>(initial?.layout ?? "split");
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const mapping = mappingOf(layout, draft);
  const problem = mapping && mappingProblem(mapping, columns);
  return (
    <section className={styles.dialog} role="dialog" aria-label="column mapping">
      <h2>Which columns hold the trajectory?</h2>
      <p className={styles.note}>
        No known producer wrote {fileName}; map its columns once and tables with the same columns
        open with this mapping. Columns:{" "}
        <span className={styles.columns}>{columns.join(", ")}</span>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (mapping && !problem) onApply(mapping);
        }}
      >
        <label>
          layout{" "}
          <select
            aria-label="layout"
            value={layout}
            onChange={(e) => setLayout(e.target.value === "full" ? "full" : "split")}
          >
            <option value="split">prompt and response columns</option>
            <option value="full">one column with every token</option>
          </select>
        </label>
        <div className={styles.fields}>
          {FIELDS[layout].map(([key, label, required]) => (
            <FieldSelect
              key={key}
              id={`mapping-${key}`}
              label={label}
              required={required}
              columns={columns}
              value={draft[key] ?? ""}
              onChange={(column) => setDraft((d) => ({ ...d, [key]: column }))}
            />
          ))}
        </div>
        {problem && <p className={styles.problem}>{problem}</p>}
        <div className={styles.buttons}>
          <button type="submit" disabled={!mapping || !!problem}>
            Apply mapping
          </button>
          {onCancel && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

function FieldSelect(props: {
  readonly id: string;
  readonly label: string;
  readonly required: boolean;
  readonly columns: readonly string[];
  readonly value: string;
  readonly onChange: (column: string) => void;
}) {
  const { id, label, required, columns, value, onChange } = props;
  return (
    <>
      <label htmlFor={id}>
        {label}
        {required ? " *" : ""}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{required ? "choose a column" : "(none)"}</option>
        {columns.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </>
  );
}
