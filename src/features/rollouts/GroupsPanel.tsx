import { Link } from "react-router";
import type { GroupStats } from "../../core/files/groupStats";
import { FINDINGS, type Finding, findingTotals } from "../../core/forest/fileFindings";
import type { GroupForensics } from "../../workers/rolloutFileProtocol";
import styles from "./GroupsPanel.module.css";

export interface GroupsPanelProps {
  readonly groups: readonly GroupStats[];
  /** The file's group forensics, once computed (duplicates, zero-variance causes, multiplicity). */
  readonly forensics: readonly GroupForensics[] | undefined;
  /** The forest view of a group. */
  readonly forestHref: (group: string) => string;
  readonly finding: Finding | undefined;
  readonly onFilterFinding: (finding: Finding | undefined) => void;
  readonly onSelectGroup: (group: string) => void;
  readonly onOpen: (rowIndex: number) => void;
  /** Opens two rows side by side (best left, worst right). */
  readonly onCompare?: (left: number, right: number) => void;
}

const fmt = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(3));
// Rows beyond this are reachable by filtering the table on a group.
const SHOWN = 300;

/** GRPO groups: reward spread, zero-variance groups flagged (no gradient), best/worst links. */
export function GroupsPanel(props: GroupsPanelProps) {
  const { groups, onSelectGroup, onOpen, onCompare, forensics, forestHref } = props;
  if (groups.length === 0) return null;
  const zero = groups.filter((g) => g.zeroVariance).length;
  const byKey = new Map((forensics ?? []).map((f) => [f.key, f]));
  const maxStd = Math.max(1e-9, ...groups.map((g) => g.std ?? 0));
  return (
    <details className={styles.panel} aria-label="groups">
      <summary>
        {groups.length} GRPO groups ·{" "}
        <span className={zero > 0 ? styles.zero : undefined}>
          {zero} zero-variance (no gradient)
        </span>
        <ForensicsSummary {...props} />
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
            <th>findings</th>
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
                {g.zeroVariance && <span className={styles.zero}> ⚠ zero variance</span>}{" "}
                <Link to={forestHref(g.group)} data-testid="forest-link">
                  tree
                </Link>
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
              <td data-testid="group-findings">
                <Findings f={byKey.get(g.group)} isLoaded={forensics !== undefined} />
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

function Findings({ f, isLoaded }: { f: GroupForensics | undefined; isLoaded: boolean }) {
  if (!f) return <span className={styles.muted}>{isLoaded ? "—" : "…"}</span>;
  const parts = [
    f.zeroVarianceCause && `zero variance: ${f.zeroVarianceCause}`,
    f.duplicates > 0 && `${f.duplicates} duplicate${f.duplicates === 1 ? "" : "s"}`,
    f.multiplicityTokens > 0 && `${f.multiplicityTokens} tokens ×${f.multiplicityMax}`,
  ].filter((p): p is string => typeof p === "string");
  return <span title={f.causes.join("\n")}>{parts.length === 0 ? "none" : parts.join(" · ")}</span>;
}

function ForensicsSummary({ forensics, finding, onFilterFinding }: GroupsPanelProps) {
  if (!forensics) return <span className={styles.muted}> · group forensics…</span>;
  const totals = findingTotals(forensics);
  const causes = [...totals.causes].map(([c, n]) => `${n} ${c}`).join(", ");
  return (
    <span data-testid="forensics-summary">
      {" · "}
      {causes === "" ? "no zero-variance cause" : `causes: ${causes}`} · {totals.duplicates}{" "}
      duplicate samples · {totals.multiplied} tokens trained more than once · show{" "}
      <select
        aria-label="rows with finding"
        value={finding ?? ""}
        onChange={(e) => onFilterFinding(FINDINGS.find((f) => f === e.target.value))}
        onClick={(e) => e.stopPropagation()}
      >
        <option value="">all rows</option>
        {FINDINGS.map((f) => (
          <option key={f} value={f}>
            {f}
          </option>
        ))}
      </select>
    </span>
  );
}
