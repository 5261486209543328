import { hasRowDrift, type RowDrift } from "../../core/drift/rowDrift";
import type { SortColumn } from "../../core/files/rowQuery";
import type { RowSummary } from "../../core/files/rowSummary";
import type { RowMismatch } from "../../core/mismatch/fileMismatch";

/** One table column: header, sort key, width and how to print the value. */
export interface Column {
  readonly key: SortColumn;
  readonly label: string;
  readonly title: string;
  readonly width: string;
  readonly isNumeric: boolean;
  readonly format: (row: RowSummary, drift?: RowDrift, mismatch?: RowMismatch) => string;
}

const fixed = (digits: number) => (v: number | undefined) =>
  v === undefined ? "—" : v.toFixed(digits);
const int = (v: number) => v.toLocaleString("en-US");

export const COLUMNS: readonly Column[] = [
  {
    key: "index",
    label: "line",
    title: "line in the file (.row inside a group line)",
    width: "72px",
    isNumeric: true,
    format: (r) => (r.row > 0 || r.format === "atropos" ? `${r.line}.${r.row}` : String(r.line)),
  },
  {
    key: "id",
    label: "id",
    title: "trajectory id",
    width: "minmax(120px, 1.4fr)",
    isNumeric: false,
    format: (r) => r.id,
  },
  {
    key: "format",
    label: "format",
    title: "record format",
    width: "110px",
    isNumeric: false,
    format: (r) => r.format,
  },
  {
    key: "status",
    label: "status",
    title: "completed / truncated / aborted / running",
    width: "90px",
    isNumeric: false,
    format: (r) => r.status,
  },
  {
    key: "reward",
    label: "reward",
    title: "scalar reward",
    width: "86px",
    isNumeric: true,
    format: (r) => fixed(3)(r.reward),
  },
  {
    key: "totalTokens",
    label: "tokens",
    title: "total tokens",
    width: "86px",
    isNumeric: true,
    format: (r) => (r.totalTokens === 0 ? "—" : int(r.totalTokens)),
  },
  {
    key: "trainableTokens",
    label: "trained",
    title: "tokens with loss mask 1",
    width: "86px",
    isNumeric: true,
    format: (r) => (r.totalTokens === 0 ? "—" : int(r.trainableTokens)),
  },
  {
    key: "turns",
    label: "turns",
    title: "model turns",
    width: "66px",
    isNumeric: true,
    format: (r) => (r.totalTokens === 0 ? "—" : String(r.turns)),
  },
  {
    key: "toolCalls",
    label: "tools",
    title: "tool calls",
    width: "62px",
    isNumeric: true,
    format: (r) => (r.totalTokens === 0 ? "—" : String(r.toolCalls)),
  },
  {
    key: "toolErrors",
    label: "tool err",
    title: "tool calls that failed to parse or returned an error",
    width: "80px",
    isNumeric: true,
    format: (r) => (r.toolErrors === 0 ? "·" : String(r.toolErrors)),
  },
  {
    key: "finishReason",
    label: "finish",
    title: "finish reason of the last model turn",
    width: "74px",
    isNumeric: false,
    format: (r) => r.finishReason ?? "—",
  },
  {
    key: "meanLogprob",
    label: "mean lp",
    title: "mean logprob over trained tokens (nats)",
    width: "86px",
    isNumeric: true,
    format: (r) => fixed(3)(r.meanLogprob),
  },
  {
    key: "group",
    label: "group",
    title: "GRPO group (atropos line, slime group_index)",
    width: "70px",
    isNumeric: false,
    format: (r) => r.group ?? "—",
  },
  {
    key: "advantage",
    label: "adv",
    title: "advantage, when the record has one",
    width: "70px",
    isNumeric: true,
    format: (r) => fixed(3)(r.advantage),
  },
];

/** Shown once the file's drift was checked: regions, and trained tokens affected when any. */
export const DRIFT_COLUMN: Column = {
  key: "drift",
  label: "drift",
  title: "retokenization drift: regions × and trained tokens affected (— not checked)",
  width: "118px",
  isNumeric: true,
  format: (_, d) => {
    if (!d) return "—";
    if (!hasRowDrift(d)) return "·";
    return d.trainableAffected > 0
      ? `${d.regions}× · ${d.trainableAffected} trained`
      : `${d.regions}×`;
  },
};

/** Shown once the file's mismatch was checked: max |δ| and the fraction clipped (C = 2). */
export const MISMATCH_COLUMN: Column = {
  key: "mismatch",
  label: "mismatch",
  title:
    "training–inference mismatch: max |δ| = |log r| over trained tokens, and the fraction " +
    "token-level truncation at C = 2 clips (— no second lane or not checked); then spurious " +
    "(temperature and truncated support explain it) or real (the residual keeps it), when known",
  width: "170px",
  isNumeric: true,
  format: (_, __, m) => {
    if (!m || m.compared === 0) return "—";
    const clipped = m.fractionCorrected > 0 ? ` · ${(100 * m.fractionCorrected).toFixed(1)}%` : "";
    const verdict = m.decomposition?.verdict;
    const why = verdict === "spurious" || verdict === "real" ? ` · ${verdict}` : "";
    return `${m.maxAbsDelta.toFixed(3)}${clipped}${why}`;
  },
};
