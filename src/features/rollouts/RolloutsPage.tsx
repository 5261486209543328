import { useMemo, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { downloadBlob } from "../../app/downloadFile";
import { EXPORT_FORMATS, type ExportFormat } from "../../core/files/exportRows";
import { groupStats } from "../../core/files/groupStats";
import type { SortColumn } from "../../core/files/rowQuery";
import { trajectoryIdsAbsentReason } from "../../core/formats/idsAbsent";
import { rolloutSeries } from "../../core/series/rolloutSeries";
import { useDocumentTitle } from "../../hooks/useDocumentTitle";
import { useTokenizerPreload } from "../../hooks/useTokenizerPreload";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";
import { FileDriftBar } from "../drift/FileDriftBar";
import { useFileDrift } from "../drift/useFileDrift";
import { FileMismatchBar } from "../mismatch/FileMismatchBar";
import { useFileMismatch } from "../mismatch/useFileMismatch";
import { WhatIfTable } from "../mismatch/WhatIfTable";
import { ColumnMappingDialog } from "./ColumnMappingDialog";
import { ErrorsPanel } from "./ErrorsPanel";
import { FileMissing } from "./FileMissing";
import { FilterBar } from "./FilterBar";
import { GroupsPanel } from "./GroupsPanel";
import { IndexStatus } from "./IndexStatus";
import { useFileClient, useRolloutFileState } from "./openFiles";
import { RolloutCharts } from "./RolloutCharts";
import styles from "./RolloutsPage.module.css";
import { RolloutTable } from "./RolloutTable";
import { RunStepNav } from "./RunCharts";
import { type ColumnMappingView, useColumnMapping } from "./useColumnMapping";
import { useFileForensics, useFindingFilter } from "./useFileForensics";
import { useFileOrder } from "./useFileRows";
import { useFileSample } from "./useFileTrajectory";
import { useRowQuery } from "./useRowQuery";

/** The charts' series of the shown rows and the file's group statistics, redone as the file grows. */
function useRowStats(state: RolloutFileState | undefined, order: readonly number[]) {
  const version = state?.version;
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows grow in place; version marks growth
  const series = useMemo(
    () => (state ? rolloutSeries(state.rows, order) : undefined),
    [order, version],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows grow in place; version marks growth
  const groups = useMemo(() => (state ? groupStats(state.rows) : []), [version]);
  return { series, groups };
}

/** `/files/:fileId`: one file's trajectories as a filterable table, with charts, groups, bad lines. */
export function RolloutsPage() {
  const { fileId = "" } = useParams();
  const navigate = useNavigate();
  const { client, reason } = useFileClient(fileId);
  const state = useRolloutFileState(client);
  useDocumentTitle(state && `${state.name} · Rollout Lens`);
  const [query, setQuery, search] = useRowQuery();
  const mapping = useColumnMapping(client, state);
  const sample = useFileSample(fileId, client, state?.rows.length ?? 0);
  const drift = useFileDrift(fileId, client, sample);
  // The tokenizer the rows decode with loads while the table is read: a row opens with its text.
  useTokenizerPreload(drift.tokenizer);
  const mismatch = useFileMismatch(fileId, client);
  // A text-only file (its first row has no ids, as the drift bar decides) has no lanes either.
  const idsAbsent = drift.sample ? trajectoryIdsAbsentReason(drift.sample) : undefined;
  const forensics = useFileForensics(fileId, client, state);
  const order = useFindingFilter(
    useFileOrder(state, query, drift.rows, mismatch.rows),
    forensics.data,
    query.finding,
  );
  const [cursor, setCursor] = useState(0);
  const { series, groups } = useRowStats(state, order);

  if (!client || !state) {
    return (
      <div className={styles.missing}>
        <FileMissing reason={reason} />
      </div>
    );
  }
  // While the table is filtered by drift, a row opens on its drift view.
  const open = (rowIndex: number) =>
    navigate(
      `/files/${fileId}/${rowIndex}${query.drift ? "/drift" : ""}${search ? `?${search}` : ""}`,
    );
  const handleSort = (column: SortColumn) =>
    setQuery({
      sort: column,
      descending: query.sort === column ? !query.descending : column !== "index" && column !== "id",
    });

  return (
    <div className={styles.page}>
      <RunStepNav fileId={fileId} />
      <FileTop client={client} state={state} order={order} mapping={mapping} />
      <FilterBar query={query} onChange={setQuery} />
      <FileDriftBar drift={drift} filter={query.drift} onFilter={(d) => setQuery({ drift: d })} />
      <FileMismatchBar
        fileId={fileId}
        mismatch={mismatch}
        above={query.mismatchAbove}
        onFilter={(x) => setQuery({ mismatchAbove: x })}
        search={search}
        tokenizer={drift.tokenizer}
        idsAbsent={idsAbsent}
      />
      <WhatIfTable fileId={fileId} client={client} state={state} idsAbsent={idsAbsent} />
      {series && <RolloutCharts series={series} onFilter={setQuery} />}
      <ErrorsPanel errors={state.errors} unit={state.unit} />
      <GroupsPanel
        groups={groups}
        forensics={forensics.data}
        forestHref={(group) => `/files/${fileId}/groups/${encodeURIComponent(group)}`}
        finding={query.finding}
        onFilterFinding={(finding) => setQuery({ finding })}
        onSelectGroup={(group) => setQuery({ group })}
        onOpen={open}
        onCompare={(left, right) => navigate(`/files/${fileId}/compare/${left}/${right}`)}
      />
      <RolloutTable
        rows={state.rows}
        order={order}
        query={query}
        cursor={Math.min(cursor, Math.max(0, order.length - 1))}
        onCursor={setCursor}
        onSort={handleSort}
        onOpen={open}
        drift={drift.rows}
        mismatch={mismatch.rows}
      />
      <div className={styles.hint}>
        <kbd>j</kbd>/<kbd>k</kbd> or arrows move · <kbd>Enter</kbd> opens · in a trajectory{" "}
        <kbd>n</kbd>/<kbd>p</kbd> next/previous, <kbd>Esc</kbd> back
      </div>
    </div>
  );
}

interface ExportControlsProps {
  readonly client: RolloutFileClient;
  readonly fileName: string;
  /** The shown rows, in order: what the export writes. */
  readonly order: readonly number[];
}

/** The export format and the button that downloads the shown rows in it. */
function ExportControls({ client, fileName, order }: ExportControlsProps) {
  const [exportFormat, setExportFormat] = useState<ExportFormat>("rollout-lens/v1");
  const [isExporting, setExporting] = useState(false);
  const handleExport = async () => {
    setExporting(true);
    try {
      const blob = await client.export(order, exportFormat);
      const base = fileName.replace(/\.jsonl$/, "");
      downloadBlob(blob, `${base}.filtered.${exportFormat.replace("/", "-")}.jsonl`);
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <select
        aria-label="export format"
        value={exportFormat}
        onChange={(e) =>
          setExportFormat(EXPORT_FORMATS.find((f) => f === e.target.value) ?? "rollout-lens/v1")
        }
      >
        {EXPORT_FORMATS.map((f) => (
          <option key={f} value={f}>
            {f}
          </option>
        ))}
      </select>
      <button type="button" onClick={handleExport} disabled={isExporting || order.length === 0}>
        {isExporting ? "exporting…" : `export ${order.length.toLocaleString("en-US")} as JSONL`}
      </button>
    </>
  );
}

interface FileTopProps {
  readonly client: RolloutFileClient;
  readonly state: RolloutFileState;
  /** The shown rows, in order. */
  readonly order: readonly number[];
  readonly mapping: ColumnMappingView;
}

/** Indexing status, the column-mapping button and dialog, and export. */
function FileTop({ client, state, order, mapping }: FileTopProps) {
  return (
    <>
      <div className={styles.top}>
        <IndexStatus
          state={state}
          shown={order.length}
          onTogglePause={() => client.setPaused(!state.isPaused)}
        />
        <div className={styles.actions}>
          {mapping.canChange && !mapping.isOpen && (
            <button type="button" onClick={mapping.open}>
              column mapping
            </button>
          )}
          <ExportControls client={client} fileName={state.name} order={order} />
        </div>
      </div>
      {mapping.isOpen && state.table && (
        <ColumnMappingDialog
          fileName={state.name}
          columns={state.table.columns}
          initial={state.table.mapping ?? state.table.suggested}
          onApply={mapping.apply}
          onCancel={state.table.mapping ? mapping.close : undefined}
        />
      )}
    </>
  );
}
