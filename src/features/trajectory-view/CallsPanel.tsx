import { useMemo } from "react";
import { type CallRow, callRows, retriesText } from "../../core/trajectory/callRows";
import type { Trajectory } from "../../core/trajectory/types";
import styles from "./CallsPanel.module.css";
import { finishText } from "./kindLabels";

const percent = (rate: number | undefined) =>
  rate === undefined ? "" : ` (${Math.round(rate * 100)} %)`;

function latency(seconds: number | undefined): string {
  if (seconds === undefined) return "–";
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(2)} s`;
}

/** The host of an upstream URL (the full URL is in the title). */
function shortUpstream(url: string | undefined): string {
  if (url === undefined) return "–";
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** How many attempts the call took; the failed ones (rid, error, backoff) listed under it. */
function AttemptsCell({ row }: { readonly row: CallRow }) {
  const { cell, lines } = retriesText(row);
  return (
    <td data-testid="call-attempts" title={lines.join("\n")}>
      {lines.length === 0 ? (
        cell
      ) : (
        <>
          <span className={styles.retried}>{cell}</span>
          {lines.map((line) => (
            <div key={line} className={styles.retry} data-testid="call-retry">
              {line}
            </div>
          ))}
        </>
      )}
    </td>
  );
}

/**
 * One row per `/generate` call of the trajectory (`calls[]`); clicking a row selects the first
 * token of the model segment it produced. Nothing is shown for a trajectory without calls.
 */
export function CallsPanel({
  trajectory,
  selected,
  onPick,
}: {
  readonly trajectory: Pick<Trajectory, "segments" | "calls">;
  /** The selected token, if any: the row whose segment holds it is marked. */
  readonly selected: number | undefined;
  readonly onPick: (token: number) => void;
}) {
  const { segments, calls } = trajectory;
  const rows = useMemo(() => callRows({ segments, calls }), [segments, calls]);
  if (rows.length === 0) return null;
  const pick = (row: CallRow) => {
    if (row.firstToken !== undefined) onPick(row.firstToken);
  };
  return (
    <details className={styles.calls} data-testid="calls-panel" open>
      <summary>
        calls · {rows.length} <code>/generate</code>
      </summary>
      <div className={styles.scroll}>
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>rid</th>
              <th>upstream</th>
              <th>input</th>
              <th>new</th>
              <th>cached (hit)</th>
              <th>latency</th>
              <th>finish</th>
              <th>weights</th>
              <th title="attempts the call took; failed ones were retried under a fresh rid">
                attempts
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.index}
                data-testid="call-row"
                className={row.firstToken === undefined ? undefined : styles.pickable}
                aria-current={
                  row.firstToken !== undefined &&
                  selected !== undefined &&
                  selected >= row.firstToken &&
                  selected < row.firstToken + row.newTokens
                    ? "true"
                    : undefined
                }
                tabIndex={row.firstToken === undefined ? undefined : 0}
                title={
                  row.firstToken === undefined
                    ? "this call produced no segment"
                    : `select the segment it produced (token #${row.firstToken})`
                }
                onClick={() => pick(row)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    pick(row);
                  }
                }}
              >
                <td>{row.index + 1}</td>
                <td>
                  <code>{row.rid}</code>
                </td>
                <td title={row.upstream}>{shortUpstream(row.upstream)}</td>
                <td>{row.inputLen}</td>
                <td>{row.newTokens}</td>
                <td>
                  {row.cachedTokens === undefined
                    ? "–"
                    : `${row.cachedTokens}${percent(row.cacheHitRate)}`}
                </td>
                <td>{latency(row.latencySeconds)}</td>
                <td>{finishText(row.finishReason ?? undefined) ?? "–"}</td>
                <td>{row.weightVersion ?? "–"}</td>
                <AttemptsCell row={row} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
