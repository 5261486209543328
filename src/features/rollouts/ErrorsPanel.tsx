import type { LineError } from "../../core/formats/types";
import styles from "./ErrorsPanel.module.css";

// Rendering thousands of bad lines helps nobody; the count says how many more there are.
const SHOWN = 500;

/**
 * Bad lines (number, field, reason), or a table's bad records (`unit` "record": its row r is
 * numbered r + 1); never blocks the good rows.
 */
export function ErrorsPanel({
  errors,
  unit = "line",
}: {
  readonly errors: readonly LineError[];
  readonly unit?: "line" | "record";
}) {
  if (errors.length === 0) return null;
  return (
    <details className={styles.panel} open aria-label={`bad ${unit}s`}>
      <summary>
        {errors.length.toLocaleString("en-US")} bad {unit}
        {errors.length === 1 ? "" : "s"} skipped
      </summary>
      <ul className={styles.list}>
        {errors.slice(0, SHOWN).map((e) => (
          <li key={e.line} data-line={e.line}>
            <span className={styles.line}>
              {unit} {e.line}
            </span>
            {e.field && <strong>{e.field}: </strong>}
            {e.message}
          </li>
        ))}
        {errors.length > SHOWN && <li>… and {errors.length - SHOWN} more</li>}
      </ul>
    </details>
  );
}
