import { Link, useParams, useSearchParams } from "react-router";
import type { RowSummary } from "../../core/files/rowSummary";
import { formatReward } from "../../core/series/formatReward";
import type { RolloutFileClient } from "../../workers/rolloutFileClient";
import { TokenizerSelect } from "../drift/TokenizerSelect";
import { useRecordedPieces } from "../drift/useRecordedPieces";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";
import styles from "./ComparePage.module.css";
import { FileMissing } from "./FileMissing";
import { useFileClient, useRolloutFileState } from "./openFiles";
import { useFileTrajectory } from "./useFileTrajectory";

function rowIndexOf(param: string | undefined): number {
  return param !== undefined && /^\d+$/.test(param) ? Number(param) : -1;
}

/**
 * `/files/:fileId/compare/:a/:b?from=N`: two trajectories of a file side by side (best vs worst of
 * a group; two children of a forest's branch point, both opened at token N).
 */
export function ComparePage() {
  const { fileId = "", a, b } = useParams();
  const [searchParams] = useSearchParams();
  const fromParam = searchParams.get("from");
  const from = fromParam !== null && /^\d+$/.test(fromParam) ? Number(fromParam) : undefined;
  const { client, reason } = useFileClient(fileId);
  const state = useRolloutFileState(client);
  if (!client || !state) return <FileMissing reason={reason} />;
  const left = rowIndexOf(a);
  const right = rowIndexOf(b);
  return (
    <div className={styles.page}>
      <nav className={styles.nav} aria-label="compare navigation">
        <Link to={`/files/${fileId}`}>← {state.name}</Link>
        <Link
          to={`/files/${fileId}/compare/${right}/${left}${from === undefined ? "" : `?from=${from}`}`}
        >
          swap sides
        </Link>
        {from !== undefined && (
          <span data-testid="compare-from">from the branch point #{from}</span>
        )}
      </nav>
      <div className={styles.sides}>
        <Side
          fileId={fileId}
          client={client}
          rowIndex={left}
          summary={state.rows[left]}
          from={from}
          unit={state.unit}
        />
        <Side
          fileId={fileId}
          client={client}
          rowIndex={right}
          summary={state.rows[right]}
          from={from}
          unit={state.unit}
        />
      </div>
    </div>
  );
}

interface SideProps {
  readonly fileId: string;
  readonly client: RolloutFileClient;
  readonly rowIndex: number;
  readonly summary: RowSummary | undefined;
  readonly from: number | undefined;
  /** What the summary's `line` numbers: a line of the file, or a table's or document's record. */
  readonly unit: "line" | "record";
}

function Side({ fileId, client, rowIndex, summary, from, unit }: SideProps) {
  const trajectory = useFileTrajectory(fileId, client, rowIndex, summary !== undefined);
  const pieces = useRecordedPieces(trajectory.data);
  return (
    <section className={styles.side} aria-label={`trajectory ${summary?.id ?? rowIndex}`}>
      <header className={styles.meta}>
        {summary ? (
          <>
            <Link to={`/files/${fileId}/${rowIndex}`}>
              <strong>{summary.id}</strong>
            </Link>{" "}
            · {unit} {summary.line} · {summary.status} · reward{" "}
            <span data-testid="compare-reward">{formatReward(summary.reward)}</span> ·{" "}
            {summary.totalTokens.toLocaleString("en-US")} tokens
            {summary.group !== undefined && ` · group ${summary.group}`}
          </>
        ) : (
          `no row ${rowIndex} in this file`
        )}
        {trajectory.data && (
          <div>
            <TokenizerSelect trajectory={trajectory.data} />
            {pieces.error && <span className={styles.error}> cannot decode: {pieces.error}</span>}
          </div>
        )}
      </header>
      {trajectory.isError && <p className={styles.error}>{trajectory.error.message}</p>}
      {trajectory.isPending && summary && (
        <p className={styles.meta}>
          reading {unit} {summary.line}…
        </p>
      )}
      {trajectory.data && (
        <div className={styles.view}>
          <TrajectoryView
            trajectory={trajectory.data}
            pieces={pieces.pieces}
            tokenizer={pieces.tokenizer}
            isTokenizerLoading={pieces.isLoading}
            controlTokens={pieces.controlTokens}
            {...(from === undefined ? {} : { initialToken: from })}
          />
        </div>
      )}
    </section>
  );
}
