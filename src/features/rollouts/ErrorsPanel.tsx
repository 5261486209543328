import type { LineError } from "../../core/formats/types";
import styles from "./ErrorsPanel.module.css";

// Rendering thousands of bad lines helps nobody; the count says how many more there are.
const SHOWN = 500;

/** Bad lines (number, field, reason); never blocks the good rows. */
export function ErrorsPanel({ errors }: { readonly errors: readonly LineError[] }) {
  if (errors.length === 0) return null;
  return (
    <details className={styles.panel} open aria-label="bad lines">
      <summary>
        {errors.length.toLocaleString("en-US")} bad line{errors.length === 1 ? "" : "s"} skipped
      </summary>
      <ul className={styles.list}>
        {errors.slice(0, SHOWN).map((e) => (
          <li key={e.line} data-line={e.line}>
            <span className={styles.line}>line {e.line}</span>
            {e.field && <strong>{e.field}: </strong>}
            {e.message}
          </li>
        ))}
        {errors.length > SHOWN && <li>… and {errors.length - SHOWN} more</li>}
      </ul>
    </details>
  );
}
