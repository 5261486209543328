import type { RowName } from "../../core/bisect/knobs";
import type { BisectRow } from "../../core/bisect/table";
import styles from "./BisectLab.module.css";

interface BisectTableProps {
  readonly rows: readonly BisectRow[];
  readonly selected: RowName | undefined;
  readonly onSelect: (knob: RowName) => void;
}

const num = (x: number) => x.toFixed(4);

/** One row per knob: mean/max |δ|, K3 and the fraction outside [0.9, 1.1]; unchecked ones say why. */
export function BisectTable({ rows, selected, onSelect }: BisectTableProps) {
  return (
    <table className={styles.table} data-testid="bisect-table">
      <thead>
        <tr>
          <th>knob</th>
          <th>change</th>
          <th>compared</th>
          <th>mean |δ|</th>
          <th>max |δ|</th>
          <th>K3</th>
          <th>outside [0.9, 1.1]</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((r) =>
          r.status === "unchecked" ? (
            <tr key={r.knob} data-knob={r.knob} className={styles.unchecked}>
              <td>{r.knob}</td>
              <td colSpan={7}>unchecked: {r.reason}</td>
            </tr>
          ) : r.isBaseline ? (
            <tr key={r.knob} data-knob={r.knob} className={styles.unchecked}>
              <td>{r.knob}</td>
              <td colSpan={7}>
                {r.change}: the baseline, as the row records no sampled logprob; each knob below is
                compared with this lane ({r.stats.compared} trained tokens)
              </td>
            </tr>
          ) : (
            <tr
              key={r.knob}
              data-knob={r.knob}
              aria-selected={selected === r.knob}
              className={selected === r.knob ? styles.selected : undefined}
            >
              <td>{r.knob}</td>
              <td>
                {r.change}
                {r.notes.map((n) => (
                  <div key={n} className={styles.note}>
                    {n}
                  </div>
                ))}
              </td>
              <td>
                {r.stats.compared}
                {r.stats.missing > 0 && ` (${r.stats.missing} missing)`}
              </td>
              <td>{num(r.stats.meanAbsDelta)}</td>
              <td>{num(r.stats.maxAbsDelta)}</td>
              <td>{num(r.stats.k3)}</td>
              <td>
                {(100 * r.stats.fractionOutside).toFixed(1)}% ({r.stats.outside})
              </td>
              <td>
                <button type="button" onClick={() => onSelect(r.knob)}>
                  Lanes
                </button>
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
