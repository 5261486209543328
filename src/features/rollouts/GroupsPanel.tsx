import type { GroupStats } from "../../core/files/groupStats";
import styles from "./GroupsPanel.module.css";

export interface GroupsPanelProps {
  readonly groups: readonly GroupStats[];
  readonly onSelectGroup: (group: string) => void;
  readonly onOpen: (rowIndex: number) => void;
  /** Opens two rows side by side (best left, worst right). */
  readonly onCompare?: (left: number, right: number) => void;
}

const fmt = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(3));
// Rows beyond this are reachable by filtering the table on a group.
const SHOWN = 300;

/** GRPO groups: reward spread, zero-variance groups flagged (no gradient), best/worst links. */
export function GroupsPanel({ groups, onSelectGroup, onOpen, onCompare }: GroupsPanelProps) {
  if (groups.length === 0) return null;
  const zero = groups.filter((g) => g.zeroVariance).length;
  const maxStd = Math.max(1e-9, ...groups.map((g) => g.std ?? 0));
  return (
    <details className={styles.panel} aria-label="groups">
      <summary>
        {groups.length} GRPO groups ·{" "}
        <span className={zero > 0 ? styles.zero : undefined}>
          {zero} zero-variance (no gradient)
        </span>
      </summary>
      <table className={styles.table}>
        <thead>
          <tr>
            <th>group</th>
            <th>n</th>
            <th>mean</th>
            <th>std</th>
            <th>min</th>
            <th>max</th>
            <th>adv</th>
            <th>spread</th>
            <th>best / worst</th>
          </tr>
        </thead>
        <tbody>
          {groups.slice(0, SHOWN).map((g) => (
            <tr key={g.group}>
              <td>
                <button
                  type="button"
                  className={styles.link}
                  onClick={() => onSelectGroup(g.group)}
                >
                  {g.group}
                </button>
                {g.zeroVariance && <span className={styles.zero}> ⚠ zero variance</span>}
              </td>
              <td>{g.members.length}</td>
              <td>{fmt(g.mean)}</td>
              <td>{fmt(g.std)}</td>
              <td>{fmt(g.min)}</td>
              <td>{fmt(g.max)}</td>
              <td>{fmt(g.meanAdvantage)}</td>
              <td>
                <span
                  className={styles.spread}
                  style={{ width: `${((g.std ?? 0) / maxStd) * 60}px` }}
                />
              </td>
              <td>
                {g.best !== undefined && (
                  <button
                    type="button"
                    className={styles.link}
                    onClick={() => g.best !== undefined && onOpen(g.best)}
                  >
                    best
                  </button>
                )}
                {" / "}
                {g.worst !== undefined && (
                  <button
                    type="button"
                    className={styles.link}
                    onClick={() => g.worst !== undefined && onOpen(g.worst)}
                  >
                    worst
                  </button>
                )}
                {onCompare &&
                  g.best !== undefined &&
                  g.worst !== undefined &&
                  g.best !== g.worst && (
                    <>
                      {" · "}
                      <button
                        type="button"
                        className={styles.link}
                        onClick={() =>
                          g.best !== undefined &&
                          g.worst !== undefined &&
                          onCompare(g.best, g.worst)
                        }
                      >
                        compare
                      </button>
                    </>
                  )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
