import { useSyncExternalStore } from "react";
import { DRIFT_CLASSES } from "../../core/drift/rowDrift";
import { DRIFT_MODES, type DriftMode } from "../../core/drift/types";
import type { DriftFilter } from "../../core/files/rowQuery";
import { trajectoryIdsAbsentReason } from "../../core/formats/idsAbsent";
import scan from "../rollouts/scanBar.module.css";
import { driftPrefsActions } from "./driftPrefsStore";
import styles from "./FileDriftBar.module.css";
import { TokenizerSelect } from "./TokenizerSelect";
import { type FileDriftState, useReadyScanPool } from "./useFileDrift";

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const percent = (n: number, of: number) => (of === 0 ? "0%" : `${((100 * n) / of).toFixed(1)}%`);

export interface FileDriftBarProps {
  readonly drift: FileDriftState;
  readonly filter: DriftFilter | undefined;
  readonly onFilter: (filter: DriftFilter | undefined) => void;
}

/** "Check drift" for a whole file: tokenizer and mode, progress, then the file's drift at a glance. */
export function FileDriftBar({ drift, filter, onFilter }: FileDriftBarProps) {
  const { summary, isScanning } = drift;
  // The file's first trajectory decides: a text-only file has no ids on any row.
  const idsAbsent = drift.sample ? trajectoryIdsAbsentReason(drift.sample) : undefined;
  useReadyScanPool(drift, idsAbsent === undefined);
  return (
    <div className={scan.bar} data-testid="file-drift">
      {idsAbsent !== undefined && (
        <p className={styles.muted} role="note" data-testid="ids-absent">
          Drift and mismatch checks are off: {idsAbsent}
        </p>
      )}
      <div className={scan.row}>
        <button
          type="button"
          onClick={drift.start}
          disabled={!drift.canStart || isScanning || idsAbsent !== undefined}
          title={idsAbsent}
          className={scan.check}
        >
          {isScanning ? "checking drift…" : "Check drift"}
        </button>
        <TokenizerSelect trajectory={drift.sample} />
        <label>
          check{" "}
          <select
            aria-label="drift mode"
            value={drift.mode}
            onChange={(e) => {
              const mode = DRIFT_MODES.find((m) => m === e.target.value);
              if (mode) driftPrefsActions.modePicked(mode satisfies DriftMode);
            }}
          >
            {DRIFT_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        {isScanning && <ScanProgress drift={drift} />}
        {drift.error && <span className={styles.error}>{drift.error}</span>}
      </div>
      {summary && !isScanning && (
        <FileDriftSummary summary={summary} drift={drift} filter={filter} onFilter={onFilter} />
      )}
    </div>
  );
}

/** While the scan runs: how far it is (rows and bytes), and a way to stop it. */
function ScanProgress({ drift }: { readonly drift: FileDriftState }) {
  const { progressStore } = drift;
  const progress = useSyncExternalStore(progressStore.subscribe, progressStore.getSnapshot);
  const fraction = progress && progress.totalBytes > 0 ? progress.bytes / progress.totalBytes : 0;
  return (
    <span className={scan.progress}>
      <progress max={1} value={fraction} aria-label="drift scan progress" />
      {progress
        ? `${progress.rows.toLocaleString("en-US")} trajectories · ` +
          `${megabytes(progress.bytes)} of ${megabytes(progress.totalBytes)}`
        : "loading tokenizer…"}
      <button type="button" onClick={drift.cancel}>
        Cancel
      </button>
    </span>
  );
}

const FILTERS = [
  [undefined, "all"],
  ["any", "drifted"],
  ["trained", "trained drift"],
  ["none", "clean"],
] as const;

interface FileDriftSummaryProps extends FileDriftBarProps {
  readonly summary: NonNullable<FileDriftState["summary"]>;
}

/** The finished scan: drifted of checked, trained tokens hit, regions by class, unchecked, filters. */
function FileDriftSummary({ summary, drift, filter, onFilter }: FileDriftSummaryProps) {
  return (
    <div className={scan.row} data-testid="file-drift-summary">
      {summary.checked === 0 ? (
        // Nothing was checked: no green "0 drifted" for checks that never ran.
        <span className={styles.bad} data-testid="drift-none-checked">
          no trajectory checked
        </span>
      ) : (
        <span className={summary.drifted > 0 ? styles.bad : styles.good}>
          <strong>{summary.drifted.toLocaleString("en-US")}</strong> of{" "}
          {summary.checked.toLocaleString("en-US")} trajectories drifted (
          {percent(summary.drifted, summary.checked)})
        </span>
      )}
      <span className={summary.driftedTrained > 0 ? styles.bad : undefined}>
        {summary.driftedTrained} touch trained tokens ·{" "}
        {summary.trainableTokensAffected.toLocaleString("en-US")} trained tokens affected
      </span>
      <span className={styles.classes}>
        {summary.regions} regions
        {DRIFT_CLASSES.filter((c) => summary.regionsByClass[c]).map((c) => (
          <span key={c} className={styles.chip}>
            {c} {summary.regionsByClass[c]}
          </span>
        ))}
      </span>
      {drift.roundTrip && (
        <span
          className={styles.muted}
          data-testid="drift-path"
          title={drift.roundTrip.reason ?? "proven to give exactly encode(decode(ids))"}
        >
          {drift.roundTrip.path === "fast"
            ? "fast round trip"
            : `exact round trip (no fast path: ${drift.roundTrip.reason ?? "unknown"})`}
        </span>
      )}
      {summary.unchecked > 0 && (
        <span className={styles.bad} data-testid="drift-unchecked">
          {summary.unchecked.toLocaleString("en-US")} unchecked:{" "}
          {Object.entries(drift.uncheckedReasons)
            .map(([reason, n]) => `${reason} (${n})`)
            .join("; ")}
        </span>
      )}
      <span className={styles.filters}>
        show{" "}
        {FILTERS.map(([f, label]) => (
          <button key={label} type="button" aria-pressed={filter === f} onClick={() => onFilter(f)}>
            {label}
          </button>
        ))}
      </span>
    </div>
  );
}
