import { hasRowDrift, type RowDrift } from "../drift/rowDrift";
import { FINDINGS, type Finding } from "../forest/fileFindings";
import type { RowMismatch } from "../mismatch/fileMismatch";
import type { TrajectoryStatus } from "../trajectory/types";
import type { RowSummary } from "./rowSummary";

/** Sortable table columns (keys of RowSummary). */
export const SORT_COLUMNS = [
  "index",
  "id",
  "format",
  "status",
  "reward",
  "totalTokens",
  "trainableTokens",
  "turns",
  "toolCalls",
  "toolErrors",
  "finishReason",
  "meanLogprob",
  "group",
  "advantage",
  "drift",
  "mismatch",
] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

const STATUSES: readonly TrajectoryStatus[] = ["completed", "truncated", "aborted", "running"];

/** Drift filter: any difference, none, or a difference touching trained (loss mask 1) tokens. */
export type DriftFilter = "any" | "none" | "trained";
const DRIFT_FILTERS: readonly DriftFilter[] = ["any", "none", "trained"];

/** Per-row drift of a file by row index (0-based in file order); undefined where not checked. */
export type DriftByRow = readonly (RowDrift | undefined)[];

/** Per-row mismatch of a file by row index; undefined where not checked or without lanes. */
export type MismatchByRow = readonly (RowMismatch | undefined)[];

/** Table filter + sort; every field maps to one URL search param so a view can be shared. */
export interface RowQuery {
  readonly status?: readonly TrajectoryStatus[];
  /** Inclusive reward range. */
  readonly rewardMin?: number;
  readonly rewardMax?: number;
  /** Inclusive total-token range. */
  readonly lengthMin?: number;
  readonly lengthMax?: number;
  /** Inclusive range of model turns. */
  readonly turnsMin?: number;
  readonly turnsMax?: number;
  readonly hasToolErrors?: boolean;
  readonly finishReason?: string;
  readonly group?: string;
  /** Case-insensitive substring of the id or decoded text. */
  readonly text?: string;
  /** Needs a drift check of the file; rows it did not cover never match. */
  readonly drift?: DriftFilter;
  /** Needs a mismatch scan: rows whose max |δ| exceeds this (rows without lanes never match). */
  readonly mismatchAbove?: number;
  /** Needs the file's group forensics: members of groups with this finding (core/forest/fileFindings). */
  readonly finding?: Finding;
  readonly sort?: SortColumn;
  readonly descending?: boolean;
}

function numberParam(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

function isSortColumn(value: string): value is SortColumn {
  return SORT_COLUMNS.some((c) => c === value);
}

function isStatus(value: string): value is TrajectoryStatus {
  return STATUSES.some((s) => s === value);
}

/** Reads a query from URL search params (`get` is URLSearchParams.get); bad values are ignored. */
export function queryFromParams(get: (name: string) => string | null): RowQuery {
  const status = (get("status") ?? "").split(",").filter(isStatus);
  const sort = get("sort") ?? "";
  const toolErrors = get("toolErrors");
  const drift = get("drift");
  return {
    status: status.length > 0 ? status : undefined,
    rewardMin: numberParam(get("rewardMin")),
    rewardMax: numberParam(get("rewardMax")),
    lengthMin: numberParam(get("lengthMin")),
    lengthMax: numberParam(get("lengthMax")),
    turnsMin: numberParam(get("turnsMin")),
    turnsMax: numberParam(get("turnsMax")),
    hasToolErrors: toolErrors === "1" ? true : toolErrors === "0" ? false : undefined,
    finishReason: get("finish") || undefined,
    group: get("group") || undefined,
    text: get("q") || undefined,
    drift: DRIFT_FILTERS.find((f) => f === drift),
    mismatchAbove: numberParam(get("mismatch")),
    finding: FINDINGS.find((f) => f === get("finding")),
    sort: isSortColumn(sort) ? sort : undefined,
    descending: get("desc") === "1" ? true : undefined,
  };
}

/** The URL search params of a query, as ordered [name, value] pairs (undefined fields omitted). */
export function queryToParams(query: RowQuery): [string, string][] {
  const out: [string, string][] = [];
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined && value !== "") out.push([name, String(value)]);
  };
  add("status", query.status?.join(","));
  add("rewardMin", query.rewardMin);
  add("rewardMax", query.rewardMax);
  add("lengthMin", query.lengthMin);
  add("lengthMax", query.lengthMax);
  add("turnsMin", query.turnsMin);
  add("turnsMax", query.turnsMax);
  add("toolErrors", query.hasToolErrors === undefined ? undefined : query.hasToolErrors ? 1 : 0);
  add("finish", query.finishReason);
  add("group", query.group);
  add("q", query.text);
  add("drift", query.drift);
  add("mismatch", query.mismatchAbove);
  add("finding", query.finding);
  add("sort", query.sort);
  add("desc", query.descending ? 1 : undefined);
  return out;
}

function driftMatches(filter: DriftFilter, drift: RowDrift | undefined): boolean {
  if (!drift) return false;
  if (filter === "none") return !hasRowDrift(drift);
  if (filter === "trained") return drift.trainableAffected > 0;
  return hasRowDrift(drift);
}

/**
 * Sort key of the drift column: trained tokens affected first, then the region count (both are
 * far below 2^20 in any real trajectory, so one number orders both).
 */
export function driftRank(drift: RowDrift): number {
  return drift.trainableAffected * 2 ** 20 + Math.min(drift.regions, 2 ** 20 - 1);
}

/**
 * True when the row passes every filter of the query (sort fields are ignored); `drift` and
 * `mismatch` are the row's checks, when the file was checked.
 */
export function rowMatches(
  row: RowSummary,
  query: RowQuery,
  drift?: RowDrift,
  mismatch?: RowMismatch,
): boolean {
  if (query.drift !== undefined && !driftMatches(query.drift, drift)) return false;
  if (
    query.mismatchAbove !== undefined &&
    !(mismatch !== undefined && mismatch.compared > 0 && mismatch.maxAbsDelta > query.mismatchAbove)
  )
    return false;
  if (query.status && !query.status.includes(row.status)) return false;
  if (query.rewardMin !== undefined && !(row.reward !== undefined && row.reward >= query.rewardMin))
    return false;
  if (query.rewardMax !== undefined && !(row.reward !== undefined && row.reward <= query.rewardMax))
    return false;
  if (query.lengthMin !== undefined && row.totalTokens < query.lengthMin) return false;
  if (query.lengthMax !== undefined && row.totalTokens > query.lengthMax) return false;
  if (query.turnsMin !== undefined && row.turns < query.turnsMin) return false;
  if (query.turnsMax !== undefined && row.turns > query.turnsMax) return false;
  if (query.hasToolErrors !== undefined && row.toolErrors > 0 !== query.hasToolErrors) return false;
  if (query.finishReason !== undefined && (row.finishReason ?? "none") !== query.finishReason)
    return false;
  if (query.group !== undefined && row.group !== query.group) return false;
  if (query.text !== undefined && !row.searchText.includes(query.text.toLowerCase())) return false;
  return true;
}

function compareValues(a: string | number | undefined, b: string | number | undefined): number {
  // Missing values sort last whatever the direction is handled by the caller.
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/**
 * Row indices (0-based positions in `rows`) that pass the query, in its sort order. Ties keep file
 * order; rows without a value in the sort column always come last. `drift` and `mismatch` (by
 * row index) feed their filters and columns.
 */
export function selectRows(
  rows: readonly RowSummary[],
  query: RowQuery,
  drift: DriftByRow = [],
  mismatch: MismatchByRow = [],
): number[] {
  const picked: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row && rowMatches(row, query, drift[i], mismatch[i])) picked.push(i);
  }
  const column = query.sort;
  if (column === undefined || column === "index") {
    if (query.descending) picked.reverse();
    return picked;
  }
  const sign = query.descending ? -1 : 1;
  const sortValue = (i: number) => {
    if (column === "mismatch") {
      const m = mismatch[i];
      return m && m.compared > 0 ? m.maxAbsDelta : undefined;
    }
    if (column !== "drift") return rows[i]?.[column];
    const d = drift[i];
    return d ? driftRank(d) : undefined;
  };
  return picked.sort((i, j) => {
    const a = sortValue(i);
    const b = sortValue(j);
    if (a === undefined || b === undefined) {
      if (a === b) return i - j;
      return a === undefined ? 1 : -1;
    }
    return sign * compareValues(a, b) || i - j;
  });
}
