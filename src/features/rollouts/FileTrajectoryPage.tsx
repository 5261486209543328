import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import type { RowSummary } from "../../core/files/rowSummary";
import { formatReward } from "../../core/series/formatReward";
import type { Trajectory } from "../../core/trajectory/types";
import { useTokenParam } from "../../hooks/useTokenParam";
import { useTurnChecks } from "../../hooks/useTurnChecks";
import { BisectLab } from "../bisect/BisectLab";
import { ForkForm } from "../branches/ForkForm";
import type { ForkSource } from "../branches/forkRequest";
import { DriftPanel } from "../drift/DriftPanel";
import { TokenizerSelect } from "../drift/TokenizerSelect";
import { useDriftModeParam, withToken } from "../drift/useDriftModeParam";
import { useDriftTokenizer } from "../drift/useDriftTokenizer";
import { useFileDrift } from "../drift/useFileDrift";
import { useRecordedPieces } from "../drift/useRecordedPieces";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";
import { AtifLinksNav } from "./AtifLinksNav";
import { FileMissing } from "./FileMissing";
import styles from "./FileTrajectoryPage.module.css";
import { isLocalFileId, listSearch } from "./fileRoutes";
import { useFileClient, useRolloutFileState } from "./openFiles";
import { decodeOnRead } from "./prefetchFileRow";
import { TextRecord } from "./TextRecord";
import { useFileOrder } from "./useFileRows";
import { useFileSample, useFileTrajectory } from "./useFileTrajectory";
import { useRowQuery } from "./useRowQuery";

type View = "tokens" | "drift" | "bisect";

/**
 * `/files/:fileId/:row[?token=N]`: one trajectory of a file, parsed from its line on demand; n/p
 * step. `/files/:fileId/:row/drift` shows its retokenization drift instead of its tokens,
 * `/files/:fileId/:row/bisect` its rescoring bisect lab (docs/bisect.md).
 */
export function FileTrajectoryPage({ view = "tokens" }: { readonly view?: View }) {
  const { fileId = "", row = "" } = useParams();
  // A fresh page per sample: scroll position, selection and the pending read start clean.
  return <FileTrajectory key={`${fileId}/${row}/${view}`} view={view} />;
}

/** The path tail of a view: `/drift`, `/bisect`, none for tokens. */
const tabPath = (view: View) => (view === "tokens" ? "" : `/${view}`);

/**
 * The rows before and after `rowIndex` in the list's `order`, with `n`, `p` and Escape bound to
 * them and to the list; `tab` and `suffix` keep the view and the list's query.
 */
function useRowStepping(
  fileId: string,
  order: readonly number[],
  rowIndex: number,
  tab: string,
  suffix: string,
) {
  const navigate = useNavigate();
  const position = order.indexOf(rowIndex);
  const prev = position > 0 ? order[position - 1] : undefined;
  const next = position >= 0 ? order[position + 1] : undefined;
  useEffect(() => {
    const handleKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey) return;
      if (event.key === "n" && next !== undefined)
        navigate(`/files/${fileId}/${next}${tab}${suffix}`);
      else if (event.key === "p" && prev !== undefined)
        navigate(`/files/${fileId}/${prev}${tab}${suffix}`);
      else if (event.key === "Escape") navigate(`/files/${fileId}${suffix}`);
    };
    window.addEventListener("keydown", handleKey);
    return () => window.removeEventListener("keydown", handleKey);
  }, [fileId, navigate, next, prev, suffix, tab]);
  return { position, prev, next };
}

/** For the tokens view: the row's tokenizer and text are asked for the moment it is read. */
function useDecodeOnRead(view: View): ((trajectory: Trajectory) => void) | undefined {
  const queryClient = useQueryClient();
  return view === "tokens" ? decodeOnRead(queryClient) : undefined;
}

function FileTrajectory({ view }: { readonly view: View }) {
  const { fileId = "", row: rowParam = "" } = useParams();
  const rowIndex = /^\d+$/.test(rowParam) ? Number(rowParam) : -1;
  const { client, reason } = useFileClient(fileId);
  const state = useRolloutFileState(client);
  const [query, , search] = useRowQuery();
  const sample = useFileSample(fileId, client, state?.rows.length ?? 0);
  const fileDrift = useFileDrift(fileId, client, sample);
  const order = useFileOrder(state, query, fileDrift.rows);
  const summary = state?.rows[rowIndex];
  const trajectory = useFileTrajectory(
    fileId,
    client,
    rowIndex,
    rowIndex >= 0,
    useDecodeOnRead(view),
  );
  const pieces = useRecordedPieces(view === "tokens" ? trajectory.data : undefined);
  const { tokenizer } = useDriftTokenizer(trajectory.data);
  // A row of a server file can be branched (into the episode store) once the one tokenizer rule
  // has chosen its tokenizer (docs/format.md#which-tokenizer-reads-a-row); the server checks its ids.
  const canBranch = !isLocalFileId(fileId) && summary !== undefined && tokenizer !== undefined;
  const turnChecks = useTurnChecks(view === "tokens" ? tokenizer : undefined, trajectory.data);
  const [initialToken, handleSelectToken] = useTokenParam();
  const [driftMode, setDriftMode] = useDriftModeParam();
  const tab = tabPath(view);
  // Links to the list and to other rows keep its filters, not this row's token.
  const list = listSearch(search);
  const suffix = list ? `?${list}` : "";
  const { position, prev, next } = useRowStepping(fileId, order, rowIndex, tab, suffix);

  if (!client) return <FileMissing reason={reason} />;
  return (
    <div className={styles.page}>
      <RowNav
        fileId={fileId}
        fileName={state?.name}
        rowIndex={rowIndex}
        view={view}
        suffix={suffix}
        stepping={{ position, prev, next, count: order.length }}
        summary={summary}
        unit={state?.unit ?? "line"}
      />
      {trajectory.data && (
        <AtifLinksNav
          trajectory={trajectory.data}
          rows={state?.rows ?? []}
          href={(row) => `/files/${fileId}/${row}${tab}${suffix}`}
        />
      )}
      {trajectory.isError && <p className={styles.error}>{trajectory.error.message}</p>}
      {trajectory.isPending && summary && (
        <p className={styles.meta}>
          reading {state?.unit ?? "line"} {summary.line}…
        </p>
      )}
      {trajectory.data && view === "tokens" && trajectory.data.segments.length === 0 && (
        <TextRecord trajectory={trajectory.data} />
      )}
      {trajectory.data && view === "tokens" && trajectory.data.segments.length > 0 && (
        <RowTokens
          trajectory={trajectory.data}
          pieces={pieces}
          initialToken={initialToken}
          onSelectToken={handleSelectToken}
          turnChecks={turnChecks}
          canBranch={canBranch}
          {...(summary ? { source: { file: fileId, line: summary.line, row: summary.row } } : {})}
        />
      )}
      {trajectory.data && view === "bisect" && trajectory.data.segments.length > 0 && (
        <BisectLab target={{ trajectory: trajectory.data }} />
      )}
      {trajectory.data && view === "drift" && (
        <DriftPanel
          trajectory={trajectory.data}
          mode={driftMode}
          onModeChange={setDriftMode}
          tokenHref={(token) => `/files/${fileId}/${rowIndex}?${withToken(search, token)}`}
        />
      )}
    </div>
  );
}

interface RowNavProps {
  readonly fileId: string;
  readonly fileName: string | undefined;
  readonly rowIndex: number;
  readonly view: View;
  /** The list's query (`?…`), kept on every link. */
  readonly suffix: string;
  /** Where the row sits in the list's order (-1: not in it), its neighbours and the list's length. */
  readonly stepping: {
    readonly position: number;
    readonly prev: number | undefined;
    readonly next: number | undefined;
    readonly count: number;
  };
  readonly summary: RowSummary | undefined;
  /** What the summary's `line` numbers: a line of the file, or a table's or document's record. */
  readonly unit: "line" | "record";
}

/** Back to the file, prev/next, the Tokens/Drift/Bisect tabs, the row's place and its summary line. */
function RowNav(props: RowNavProps) {
  const { fileId, fileName, rowIndex, view, suffix, stepping, summary, unit } = props;
  const tab = tabPath(view);
  return (
    <nav className={styles.nav} aria-label="trajectory navigation">
      <Link to={`/files/${fileId}${suffix}`}>← {fileName ?? "file"}</Link>
      {stepping.prev !== undefined && (
        <Link to={`/files/${fileId}/${stepping.prev}${tab}${suffix}`}>‹ prev (p)</Link>
      )}
      {stepping.next !== undefined && (
        <Link to={`/files/${fileId}/${stepping.next}${tab}${suffix}`}>next (n) ›</Link>
      )}
      <span className={styles.tabs}>
        <Link
          to={`/files/${fileId}/${rowIndex}${suffix}`}
          aria-current={view === "tokens" ? "page" : undefined}
        >
          Tokens
        </Link>
        <Link
          to={`/files/${fileId}/${rowIndex}/drift${suffix}`}
          aria-current={view === "drift" ? "page" : undefined}
        >
          Drift
        </Link>
        <Link
          to={`/files/${fileId}/${rowIndex}/bisect${suffix}`}
          aria-current={view === "bisect" ? "page" : undefined}
        >
          Bisect
        </Link>
      </span>
      <span className={styles.meta} data-testid="sample-position">
        {stepping.position >= 0
          ? `${stepping.position + 1} of ${stepping.count}`
          : "not in the filtered set"}
      </span>
      {summary && (
        <span className={styles.meta}>
          <strong>{summary.id}</strong> · {unit} {summary.line} · {summary.status} · reward{" "}
          {formatReward(summary.reward)} ·{" "}
          {summary.totalTokens === 0
            ? "no token ids"
            : `${summary.totalTokens.toLocaleString("en-US")} tokens`}
          {summary.group !== undefined && ` · group ${summary.group}`}
        </span>
      )}
    </nav>
  );
}

interface RowTokensProps {
  readonly trajectory: Trajectory;
  readonly pieces: ReturnType<typeof useRecordedPieces>;
  readonly initialToken: number | undefined;
  /** Writes the selected token into the URL. */
  readonly onSelectToken: (token: number) => void;
  readonly turnChecks: ReturnType<typeof useTurnChecks>;
  /** The view offers "Branch here". */
  readonly canBranch: boolean;
  /** The server file's row the branches start from (once the row's summary is known). */
  readonly source?: ForkSource;
}

/** The row's tokens: the decoding tokenizer, the branch form once asked for, and the view. */
function RowTokens(props: RowTokensProps) {
  const { trajectory, pieces, initialToken, onSelectToken, turnChecks, canBranch, source } = props;
  const [forkAt, setForkAt] = useState<number>();
  return (
    <>
      <div className={styles.decode}>
        <TokenizerSelect trajectory={trajectory} />
        {pieces.error && (
          <span className={styles.error}>cannot decode with it: {pieces.error}</span>
        )}
      </div>
      {forkAt !== undefined && source && (
        <ForkForm
          key={forkAt}
          parent={trajectory}
          source={source}
          index={forkAt}
          onClose={() => setForkAt(undefined)}
        />
      )}
      <div className={styles.view}>
        <TrajectoryView
          trajectory={trajectory}
          pieces={pieces.pieces}
          tokenizer={pieces.tokenizer}
          isTokenizerLoading={pieces.isLoading}
          controlTokens={pieces.controlTokens}
          initialToken={initialToken}
          onSelectToken={onSelectToken}
          turnChecks={turnChecks}
          {...(canBranch ? { onBranch: setForkAt } : {})}
        />
      </div>
    </>
  );
}
