import { useMemo, useState } from "react";
import { Link } from "react-router";
import { revealInvisible } from "../../core/layout/displayPiece";
import type { LanePairCount, MismatchToken } from "../../core/mismatch/fileMismatch";
import { laneLabels } from "../../core/mismatch/laneLabels";
import { tokenMismatch } from "../../core/mismatch/mismatch";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import scan from "../rollouts/scanBar.module.css";
import styles from "./FileMismatchBar.module.css";
import { MismatchCharts } from "./MismatchCharts";
import { ScanPicker } from "./ScanPicker";
import { correctionLabel, DEFAULT_DRAFT, type ScanPickerDraft, scanOptionsOf } from "./scanPicker";
import type { FileMismatchState } from "./useFileMismatch";

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const int = (n: number) => n.toLocaleString("en-US");
/** Thresholds offered for "max |δ| > x": 2× and 5× in r, and a small one. */
const PRESETS: readonly [number, string][] = [
  [0.05, "0.05"],
  [Math.round(Math.LN2 * 1000) / 1000, "ln 2 (2×)"],
  [Math.round(Math.log(5) * 1000) / 1000, "ln 5 (5×)"],
];

export interface FileMismatchBarProps {
  readonly fileId: string;
  readonly mismatch: FileMismatchState;
  /** The "max |δ| > x" filter in force, if any. */
  readonly above: number | undefined;
  readonly onFilter: (above: number | undefined) => void;
  /** Keeps the table's query (filters) on the links to the worst tokens. */
  readonly search: string;
  /** The tokenizer that decodes the worst tokens' ids (the file's, as Check drift uses), if any. */
  readonly tokenizer?: string | undefined;
  /** Why the file has no token ids (text only): the check is off, as the drift bar says. */
  readonly idsAbsent?: string | undefined;
}

/** The file's worst tokens, each a link to the token in its trajectory. */
function WorstTokens({
  fileId,
  tokens,
  lanes,
  search,
  tokenizer,
}: {
  readonly fileId: string;
  readonly tokens: readonly MismatchToken[];
  readonly lanes: LanePairCount[];
  readonly search: string;
  readonly tokenizer: string | undefined;
}) {
  const [isOpen, setOpen] = useState(false);
  const ids = useMemo(() => tokens.map((t) => t.tokenId), [tokens]);
  // Each id's display piece from the tokenizer worker (the token view's pieces), when there is one.
  const { pieces } = useTokenPieces(tokenizer, ids);
  const shown = isOpen ? tokens : tokens.slice(0, 8);
  const names = laneLabels(lanes);
  const query = (token: number) => {
    const params = new URLSearchParams(search);
    params.set("token", String(token));
    return params.toString();
  };
  return (
    <div className={styles.worst}>
      <table data-testid="mismatch-worst">
        <caption>worst tokens (largest |δ|) · click to open the token</caption>
        <thead>
          <tr>
            <th>line</th>
            <th>token</th>
            <th>id</th>
            {tokenizer && <th title={`decoded with ${tokenizer}`}>text</th>}
            <th title="lane a's logprob" data-testid="mismatch-worst-lane-a">
              logp {names.a}
            </th>
            <th title="lane b's logprob" data-testid="mismatch-worst-lane-b">
              logp {names.b}
            </th>
            <th>δ</th>
            <th>r</th>
            <th>|Δp|</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((t, i) => {
            const m = tokenMismatch(t.a, t.b);
            return (
              <tr key={`${t.row}.${t.token}`}>
                <td>{t.line}</td>
                <td>
                  <Link to={`/files/${fileId}/${t.row}?${query(t.token)}`}>#{t.token}</Link>
                </td>
                <td>{t.tokenId}</td>
                {tokenizer && (
                  <td className={styles.piece} data-testid="mismatch-worst-text">
                    {pieces?.[i] === undefined ? "…" : revealInvisible(JSON.stringify(pieces[i]))}
                  </td>
                )}
                <td>{t.a.toFixed(4)}</td>
                <td>{t.b.toFixed(4)}</td>
                <td
                  className={Math.abs(t.delta) > Math.LN2 ? styles.bad : undefined}
                  data-testid="mismatch-worst-delta"
                >
                  {t.delta.toFixed(4)}
                </td>
                <td>{m ? m.r.toPrecision(3) : "—"}</td>
                <td>{m ? m.absDp.toFixed(4) : "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {tokens.length > 8 && (
        <button type="button" onClick={() => setOpen(!isOpen)}>
          {isOpen ? "show fewer" : `show all ${tokens.length}`}
        </button>
      )}
    </div>
  );
}

/** The table's "max |δ| > x" filter: a number, the presets, and "all" to clear it. */
function MismatchFilter({ above, onFilter }: Pick<FileMismatchBarProps, "above" | "onFilter">) {
  return (
    <span className={styles.filters}>
      <label>
        max |δ| &gt;{" "}
        <input
          type="number"
          step="0.01"
          min="0"
          aria-label="mismatch above"
          placeholder="x"
          value={above ?? ""}
          onChange={(e) => {
            const v = e.target.value.trim() === "" ? undefined : Number(e.target.value);
            onFilter(v !== undefined && Number.isFinite(v) ? v : undefined);
          }}
        />
      </label>
      {PRESETS.map(([v, label]) => (
        <button
          key={label}
          type="button"
          aria-pressed={above === v}
          onClick={() => onFilter(above === v ? undefined : v)}
        >
          {label}
        </button>
      ))}
      {above !== undefined && (
        <button type="button" onClick={() => onFilter(undefined)}>
          all
        </button>
      )}
    </span>
  );
}

/**
 * "Check mismatch" for a whole file: progress and cancel, then the file-wide charts, the worst
 * tokens and the "max |δ| > x" filter of the table.
 */
export function FileMismatchBar({
  fileId,
  mismatch,
  above,
  onFilter,
  search,
  tokenizer,
  idsAbsent,
}: FileMismatchBarProps) {
  const { result, progress, isScanning } = mismatch;
  const fraction = progress && progress.totalBytes > 0 ? progress.bytes / progress.totalBytes : 0;
  const withLanes = result?.rows.filter((r) => r !== undefined && r.compared > 0).length ?? 0;
  const charts = result?.charts;
  const [draft, setDraft] = useState<ScanPickerDraft>(DEFAULT_DRAFT);
  const picked = scanOptionsOf(draft);
  const lanes = mismatch.options.lanes;
  return (
    <div className={scan.bar} data-testid="file-mismatch">
      <div className={scan.row}>
        <button
          type="button"
          onClick={() => picked.ok && mismatch.start(picked.options)}
          disabled={!mismatch.canStart || isScanning || !picked.ok || idsAbsent !== undefined}
          className={scan.check}
          title={
            idsAbsent ??
            "compare each trajectory's trainer (or rescored, reference) lane with its sampled logprobs"
          }
        >
          {isScanning ? "checking mismatch…" : "Check mismatch"}
        </button>
        <ScanPicker
          draft={draft}
          onChange={setDraft}
          problem={picked.ok ? undefined : picked.message}
          disabled={isScanning}
        />
        {isScanning && (
          <span className={scan.progress}>
            <progress max={1} value={fraction} aria-label="mismatch scan progress" />
            {progress
              ? `${int(progress.rows)} trajectories · ${megabytes(progress.bytes)} of ${megabytes(progress.totalBytes)}`
              : "starting…"}
            <button type="button" onClick={mismatch.cancel}>
              Cancel
            </button>
          </span>
        )}
        {mismatch.error && <span className={styles.error}>{mismatch.error}</span>}
        {result && !isScanning && charts && (
          <span data-testid="file-mismatch-summary">
            {charts.compared === 0 ? (
              <span className={styles.muted}>
                {lanes
                  ? `no trajectory has both lanes ${lanes[0]} and ${lanes[1]}: nothing to compare`
                  : "nothing to compare: no trained token has a logprob in both the sampled lane (e.g. atropos' inference_logprobs) and a trainer, reference or rescored lane; per-token rewards or weights are not lanes"}
              </span>
            ) : (
              <>
                <strong>{int(charts.compared)}</strong> trained tokens of {int(withLanes)}{" "}
                trajectories compared{lanes ? ` (${lanes[0]} vs ${lanes[1]})` : ""} · max |δ|{" "}
                {Math.abs(charts.worst[0]?.delta ?? 0).toFixed(3)} ·{" "}
                {correctionLabel(mismatch.options)}:{" "}
                {int(
                  Math.round(
                    result.rows.reduce((s, r) => s + (r ? r.fractionCorrected * r.compared : 0), 0),
                  ),
                )}
              </>
            )}
          </span>
        )}
        {result && !isScanning && (charts?.compared ?? 0) > 0 && (
          <MismatchFilter above={above} onFilter={onFilter} />
        )}
      </div>
      {charts && charts.compared > 0 && !isScanning && (
        <>
          <MismatchCharts charts={charts} />
          <WorstTokens
            fileId={fileId}
            tokens={charts.worst}
            lanes={charts.lanePairs}
            search={search}
            tokenizer={tokenizer}
          />
        </>
      )}
    </div>
  );
}
