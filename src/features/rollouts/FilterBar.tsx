import type { RowQuery } from "../../core/files/rowQuery";
import type { TrajectoryStatus } from "../../core/trajectory/types";
import styles from "./FilterBar.module.css";

const STATUSES: readonly TrajectoryStatus[] = ["completed", "truncated", "aborted", "running"];

export interface FilterBarProps {
  readonly query: RowQuery;
  readonly onChange: (patch: Partial<RowQuery>) => void;
}

function numberOrUndefined(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Status chips, reward and length ranges, tool-error toggle and text search (all in the URL). */
export function FilterBar({ query, onChange }: FilterBarProps) {
  const toggleStatus = (s: TrajectoryStatus) => {
    const current = query.status ?? [];
    const next = current.includes(s) ? current.filter((x) => x !== s) : [...current, s];
    onChange({ status: next.length > 0 ? next : undefined });
  };
  const range = (label: string, min: keyof RowQuery, max: keyof RowQuery, step: string) => (
    <label>
      {label}
      <input
        type="number"
        step={step}
        placeholder="min"
        aria-label={`${label} min`}
        value={String(query[min] ?? "")}
        onChange={(e) => onChange({ [min]: numberOrUndefined(e.target.value) })}
      />
      –
      <input
        type="number"
        step={step}
        placeholder="max"
        aria-label={`${label} max`}
        value={String(query[max] ?? "")}
        onChange={(e) => onChange({ [max]: numberOrUndefined(e.target.value) })}
      />
    </label>
  );
  return (
    <div className={styles.bar}>
      <input
        type="search"
        className={styles.search}
        placeholder="search id and text…"
        aria-label="search"
        value={query.text ?? ""}
        onChange={(e) => onChange({ text: e.target.value || undefined })}
      />
      <span className={styles.chips}>
        {STATUSES.map((s) => (
          <button
            key={s}
            type="button"
            aria-pressed={query.status?.includes(s) ?? false}
            className={`${styles.chip} ${query.status?.includes(s) ? styles.chipOn : ""}`}
            onClick={() => toggleStatus(s)}
          >
            {s}
          </button>
        ))}
      </span>
      {range("reward", "rewardMin", "rewardMax", "0.1")}
      {range("tokens", "lengthMin", "lengthMax", "1")}
      <label>
        <input
          type="checkbox"
          checked={query.hasToolErrors === true}
          onChange={(e) => onChange({ hasToolErrors: e.target.checked ? true : undefined })}
        />
        has tool errors
      </label>
      {query.finishReason !== undefined && (
        <button
          type="button"
          className={styles.active}
          onClick={() => onChange({ finishReason: undefined })}
        >
          finish = {query.finishReason} ✕
        </button>
      )}
      {(query.turnsMin !== undefined || query.turnsMax !== undefined) && (
        <button
          type="button"
          className={styles.active}
          onClick={() => onChange({ turnsMin: undefined, turnsMax: undefined })}
        >
          turns {query.turnsMin ?? "…"}–{query.turnsMax ?? "…"} ✕
        </button>
      )}
      {query.group !== undefined && (
        <button
          type="button"
          className={styles.active}
          onClick={() => onChange({ group: undefined })}
        >
          group = {query.group} ✕
        </button>
      )}
    </div>
  );
}
