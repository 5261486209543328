import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { Link, useNavigate } from "react-router";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { filesQueries, STEP_STATS_PENDING } from "../../api/files";
import type { ServerFile } from "../../core/files/filesWire";
import { chartedStepFiles, runPositionLabel } from "../../core/files/runSteps";
import { runStepPoints, type StepStats } from "../../core/files/stepStats";
import styles from "./RunCharts.module.css";

const AXIS = { fontSize: 10, fill: "var(--muted)" };

type Metric = "reward" | "length" | "driftRate" | "mismatch" | "zeroVariance" | "duplicates";

// Left to itself, the axis of an all-zero share runs 0–400 %, and a two-step run's ticks are 0.25 apart.
const SHARE_DOMAIN: [number, (max: number) => number] = [0, (max) => (max > 0 ? max : 1)];
const percent = (v: number) => `${(v * 100).toFixed(1)}%`;
/** A percent axis tick: whole percents, so "100%" fits the axis. */
const percentTick = (v: number) => `${Math.round(v * 100)}%`;
const share = (n: number | undefined, of: number | undefined) =>
  n === undefined || of === undefined || of === 0 ? undefined : n / of;
/** Why a step has no group chart point. */
const groupsNote = (s: StepStats) =>
  s.groupsNote ?? (s.groups?.groups === 0 ? "no group of two or more samples" : undefined);

const METRICS: readonly {
  readonly key: Metric;
  readonly value: (s: StepStats) => number | undefined;
  readonly title: string;
  readonly color: string;
  readonly format: (v: number) => string;
  /** The axis ticks' format, when shorter than `format`. */
  readonly tick?: (v: number) => string;
  /** A share (0–1): the axis ends at the largest value, or at 100 % when every step has 0. */
  readonly isShare?: boolean;
  /** Why the metric is missing on a step, when it is. */
  readonly note: (s: StepStats) => string | undefined;
}[] = [
  {
    key: "reward",
    value: (s) => s.reward,
    title: "mean reward",
    color: "var(--accent, #2563eb)",
    format: (v) => v.toFixed(3),
    note: () => "no scalar reward recorded",
  },
  {
    key: "length",
    value: (s) => s.length,
    title: "mean length (tokens)",
    color: "#7c3aed",
    format: (v) => v.toFixed(0),
    note: () => "no token ids recorded (text only)",
  },
  {
    key: "driftRate",
    value: (s) => s.driftRate,
    title: "drift rate",
    color: "#dc2626",
    format: percent,
    tick: percentTick,
    isShare: true,
    note: (s) => s.driftNote,
  },
  {
    key: "mismatch",
    value: (s) => s.mismatch,
    title: "logprob mismatch (mean |Δ| nats)",
    color: "#d97706",
    format: (v) => v.toFixed(4),
    note: (s) => s.mismatchNote,
  },
  {
    key: "zeroVariance",
    value: (s) => share(s.groups?.zeroVariance, s.groups?.groups),
    title: "zero-variance groups",
    color: "#0f766e",
    format: percent,
    tick: percentTick,
    isShare: true,
    note: groupsNote,
  },
  {
    key: "duplicates",
    value: (s) => share(s.groups?.duplicates, s.groups?.samples),
    title: "duplicate samples",
    color: "#be185d",
    format: percent,
    tick: percentTick,
    isShare: true,
    note: groupsNote,
  },
];

/** The note said instead of an empty chart: why no step of the run has the metric. */
function notRecorded(note: string | undefined): string {
  const why = note ?? "no step has it";
  // A check that could not run (drift without a known tokenizer) is unchecked, not unrecorded.
  if (why.startsWith("tokenizer ")) return `not checked: ${why}`;
  return why.startsWith("not recorded") ? why : `not recorded: ${why}`;
}

/** The run's files its charts count: training ones, prime-rl's `all` subset (runSteps.ts). */
function chartedFiles(files: readonly ServerFile[]): ServerFile[] {
  const positions = files.map((file) => ({
    file,
    step: file.run?.step ?? 0,
    split: file.run?.split,
    subset: file.run?.subset,
  }));
  return chartedStepFiles(positions).map((p) => p.file);
}

/** A run's step files as the server lists them (in step order). */
export function useRunFiles(runId: string | undefined): readonly ServerFile[] {
  const list = useQuery(filesQueries.list());
  if (runId === undefined) return [];
  return list.data?.files.filter((f) => f.run?.id === runId) ?? [];
}

/**
 * Per-step reward, length, drift rate, mismatch and group forensics (zero-variance groups,
 * duplicate samples) across a run, one point per step file; the
 * statistics come from the server (a worker thread, cached per file), so reopening is instant.
 */
export function RunCharts({
  files: listed,
  current,
}: {
  readonly files: readonly ServerFile[];
  /** The step being viewed, marked on every chart. */
  readonly current?: number;
}) {
  const navigate = useNavigate();
  const files = chartedFiles(listed);
  const left = listed.length - files.length;
  const queries = useQueries({ queries: files.map((f) => filesQueries.stepStats(f.id)) });
  const stats = queries.map((q) => ({
    data: q.data === STEP_STATS_PENDING ? undefined : q.data,
    error: q.error,
  }));
  const done = stats.filter((q) => q.data !== undefined).length;
  const failed = files.flatMap((f, k) => {
    const error = stats[k]?.error;
    return error ? [`step ${f.run?.step}: ${error.message}`] : [];
  });
  // One point per step: a step's shards merged (core/files/stepStats.ts).
  const points = runStepPoints(
    files.map((f, k) => ({ fileId: f.id, step: f.run?.step ?? k, stats: stats[k]?.data })),
  );
  const steps = new Set(files.map((f, k) => f.run?.step ?? k)).size;
  return (
    <section className={styles.run} aria-label="run charts">
      <p className={styles.note} data-testid="run-progress">
        {done < files.length
          ? `statistics of ${done} / ${files.length} step files (computed on the server, cached per file)…`
          : `${steps} steps${steps < files.length ? ` in ${files.length} files` : ""}`}
        {left > 0 &&
          ` (training rollouts only: ${left} eval or repeated-subset files listed, not charted)`}
      </p>
      <div className={styles.charts}>
        {METRICS.map((m) => {
          const data = points.map((p) => ({
            step: p.step,
            fileId: p.fileId,
            value: m.value(p.stats) ?? null,
          }));
          const shown = data.filter((d) => d.value !== null).length;
          const firstNote = points.map((p) => m.note(p.stats)).find((n) => n);
          return (
            <figure key={m.key} className={styles.chart} aria-label={`per-step ${m.title}`}>
              <h3>{m.title}</h3>
              {shown === 0 ? (
                <p className={styles.empty}>{done === 0 ? "computing…" : notRecorded(firstNote)}</p>
              ) : (
                <ResponsiveContainer width="100%" height="100%">
                  <LineChart
                    data={data}
                    margin={{ top: 4, right: 8, bottom: 0, left: -14 }}
                    onClick={(state) => {
                      const index = Number(state?.activeTooltipIndex);
                      const fileId = Number.isInteger(index) ? data[index]?.fileId : undefined;
                      if (fileId !== undefined) navigate(`/files/${fileId}`);
                    }}
                  >
                    <CartesianGrid stroke="var(--border)" strokeDasharray="2 3" />
                    <XAxis
                      dataKey="step"
                      type="number"
                      domain={["dataMin", "dataMax"]}
                      allowDecimals={false}
                      tick={AXIS}
                    />
                    <YAxis
                      tick={AXIS}
                      {...(m.isShare ? { domain: SHARE_DOMAIN } : {})}
                      tickFormatter={(v: number) => (m.tick ?? m.format)(v)}
                      width={52}
                    />
                    <Tooltip
                      formatter={(v) => [typeof v === "number" ? m.format(v) : "—", m.title]}
                      labelFormatter={(step) => `step ${step}`}
                    />
                    {current !== undefined && (
                      <ReferenceLine x={current} stroke="var(--muted)" strokeDasharray="3 3" />
                    )}
                    <Line
                      dataKey="value"
                      stroke={m.color}
                      dot={{ r: 2 }}
                      connectNulls
                      isAnimationActive={false}
                    />
                  </LineChart>
                </ResponsiveContainer>
              )}
              <p className={styles.count} data-testid={`run-${m.key}-count`}>
                {shown} of {steps} steps
              </p>
            </figure>
          );
        })}
      </div>
      {failed.length > 0 && (
        <ul className={styles.errors}>
          {failed.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * On a run step's table: the run, the step, ‹ prev (p) / next (n) › between step files, and the
 * run's charts with this step marked.
 */
export function RunStepNav({ fileId }: { readonly fileId: string }) {
  const navigate = useNavigate();
  const list = useQuery(filesQueries.list());
  const me = list.data?.files.find((f) => f.id === fileId);
  const files = useRunFiles(me?.run?.id);
  const at = files.findIndex((f) => f.id === fileId);
  const prev = at > 0 ? files[at - 1] : undefined;
  const next = at >= 0 ? files[at + 1] : undefined;
  useEffect(() => {
    const handleKey = (event: KeyboardEvent) => {
      const target = event.target;
      if (
        target instanceof HTMLInputElement ||
        target instanceof HTMLTextAreaElement ||
        target instanceof HTMLSelectElement ||
        event.metaKey ||
        event.ctrlKey ||
        event.altKey
      )
        return;
      if (event.key === "n" && next) navigate(`/files/${next.id}`);
      else if (event.key === "p" && prev) navigate(`/files/${prev.id}`);
    };
    window.addEventListener("keydown", handleKey);
    return () => window.removeEventListener("keydown", handleKey);
  }, [navigate, next, prev]);
  if (!me?.run) return null;
  return (
    <div className={styles.nav}>
      <nav aria-label="run steps" className={styles.steps}>
        <Link to="/files">run {me.run.name}</Link>
        <strong data-testid="run-step">
          {runPositionLabel(me.run)} ({at + 1} of {files.length})
        </strong>
        {prev ? (
          <Link to={`/files/${prev.id}`}>‹ prev step (p)</Link>
        ) : (
          <span>‹ prev step (p)</span>
        )}
        {next ? (
          <Link to={`/files/${next.id}`}>next step (n) ›</Link>
        ) : (
          <span>next step (n) ›</span>
        )}
      </nav>
      <RunCharts files={files} current={me.run.step} />
    </div>
  );
}
