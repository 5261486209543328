import { memo, useState } from "react";
import type { FlatTrajectory } from "../../core/layout/flatTrajectory";
import {
  CORRECTION_KINDS,
  type Correction,
  type CorrectionKind,
  type MismatchStats,
} from "../../core/mismatch/mismatch";
import { MISMATCH_EXTENTS } from "../../core/mismatch/mismatchScale";
import type { Trajectory } from "../../core/trajectory/types";
import { prefsActions, useMismatchExtent, useMismatchThreshold } from "../../stores/prefsStore";
import { CumDeltaChart } from "./CumDeltaChart";
import { DecompositionLanes } from "./DecompositionLanes";
import { CORRECTION_LABEL } from "./kindLabels";
import styles from "./MismatchPanel.module.css";
import { RoutingSummary } from "./RoutingSummary";
import type { MismatchView } from "./useMismatch";

interface MismatchPanelProps {
  readonly trajectory: Trajectory;
  readonly flat: FlatTrajectory;
  readonly view: MismatchView;
  readonly selected: number | undefined;
  readonly onPick: (token: number) => void;
  /** Selects the next token with |δ| above the threshold; false when there is none. */
  readonly onNextMismatch: (threshold: number) => boolean;
}

/** A number field that commits valid values only (an empty or partial entry stays local). */
function NumberField({
  label,
  value,
  step,
  onCommit,
}: {
  readonly label: string;
  readonly value: number;
  readonly step: number;
  readonly onCommit: (value: number) => void;
}) {
  const [text, setText] = useState(String(value));
  return (
    <label>
      {label}{" "}
      <input
        aria-label={label}
        className={styles.number}
        type="number"
        step={step}
        min={0}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          const v = Number(event.target.value);
          if (event.target.value !== "" && Number.isFinite(v) && v > 0) onCommit(v);
        }}
      />
    </label>
  );
}

function CorrectionControls({ correction }: { readonly correction: Correction }) {
  const isTrunc = correction.kind.endsWith("-trunc");
  return (
    <span className={styles.group}>
      <select
        aria-label="correction"
        value={correction.kind}
        onChange={(event) =>
          prefsActions.correctionChanged({ kind: event.target.value as CorrectionKind })
        }
      >
        {CORRECTION_KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {CORRECTION_LABEL[kind]}
          </option>
        ))}
      </select>
      {isTrunc ? (
        <NumberField
          label="cap C"
          value={correction.cap}
          step={0.5}
          onCommit={(cap) => prefsActions.correctionChanged({ cap })}
        />
      ) : (
        <>
          <NumberField
            label="lo"
            value={correction.lo}
            step={0.1}
            onCommit={(lo) => prefsActions.correctionChanged({ lo })}
          />
          <NumberField
            label="hi"
            value={correction.hi}
            step={0.5}
            onCommit={(hi) => prefsActions.correctionChanged({ hi })}
          />
        </>
      )}
    </span>
  );
}

function LaneSelect({
  label,
  names,
  value,
  onChange,
}: {
  readonly label: string;
  readonly names: readonly string[];
  readonly value: string;
  readonly onChange: (name: string) => void;
}) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}

function Controls({ view, onNextMismatch }: Pick<MismatchPanelProps, "view" | "onNextMismatch">) {
  const extent = useMismatchExtent();
  const threshold = useMismatchThreshold();
  const [message, setMessage] = useState("");
  const [a, b] = view.pair?.names ?? ["", ""];
  return (
    <div className={styles.controls}>
      {view.pair && (
        <span className={styles.group}>
          <LaneSelect
            label="lane a"
            names={view.laneNames}
            value={a}
            onChange={(name) => view.onLanesChange([name, b])}
          />
          vs
          <LaneSelect
            label="lane b"
            names={view.laneNames}
            value={b}
            onChange={(name) => view.onLanesChange([a, name])}
          />
        </span>
      )}
      <label>
        scale ±{" "}
        <select
          aria-label="mismatch scale"
          value={extent}
          onChange={(event) => prefsActions.mismatchExtentChanged(Number(event.target.value))}
        >
          {MISMATCH_EXTENTS.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <CorrectionControls correction={view.correction} />
      <span className={styles.group}>
        <NumberField
          label="|δ| >"
          value={threshold}
          step={0.1}
          onCommit={prefsActions.mismatchThresholdChanged}
        />
        <button
          type="button"
          onClick={() => setMessage(onNextMismatch(threshold) ? "" : "none above threshold")}
        >
          Next mismatch
        </button>
        <span className={styles.message} role="status">
          {message}
        </span>
      </span>
    </div>
  );
}

function format(x: number, digits = 4): string {
  if (x === 0) return "0";
  return Math.abs(x) < 1e-3 || Math.abs(x) >= 1e4 ? x.toExponential(2) : x.toFixed(digits);
}

function Stats({
  stats,
  onPick,
}: {
  readonly stats: MismatchStats;
  readonly onPick: (token: number) => void;
}) {
  const percent = (x: number) => `${(x * 100).toFixed(1)} %`;
  return (
    <dl className={styles.stats} data-testid="mismatch-stats">
      <dt>compared</dt>
      <dd data-testid="mismatch-compared">{stats.compared}</dd>
      <dt>missing</dt>
      <dd>{stats.missing}</dd>
      <dt>mean |δ|</dt>
      <dd data-testid="mismatch-mean">{format(stats.meanAbsDelta)}</dd>
      <dt>max |δ|</dt>
      <dd>
        {stats.maxAt >= 0 ? (
          <button type="button" className={styles.link} onClick={() => onPick(stats.maxAt)}>
            {format(stats.maxAbsDelta)} at #{stats.maxAt}
          </button>
        ) : (
          "—"
        )}
      </dd>
      <dt>mean |Δp|</dt>
      <dd>{format(stats.meanAbsDp)}</dd>
      <dt>k1</dt>
      <dd data-testid="mismatch-k1">{format(stats.k1)}</dd>
      <dt>k2</dt>
      <dd data-testid="mismatch-k2">{format(stats.k2)}</dd>
      <dt>k3</dt>
      <dd data-testid="mismatch-k3">{format(stats.k3)}</dd>
      <dt>ESS</dt>
      <dd data-testid="mismatch-ess">
        {percent(stats.ess)} (corrected {percent(stats.essCorrected)})
      </dd>
      <dt>Σδ</dt>
      <dd>{format(stats.sumDelta)}</dd>
      <dt>clipped</dt>
      <dd data-testid="mismatch-clipped">{stats.clipped}</dd>
      <dt>masked</dt>
      <dd data-testid="mismatch-masked">{stats.masked}</dd>
      <dt>corrected</dt>
      <dd data-testid="mismatch-fraction">{percent(stats.fractionCorrected)}</dd>
    </dl>
  );
}

/** Clipped and masked tokens per segment that has compared tokens; click a segment to go there. */
function SegmentCounts({
  trajectory,
  flat,
  stats,
  onPick,
}: {
  readonly trajectory: Trajectory;
  readonly flat: FlatTrajectory;
  readonly stats: MismatchStats;
  readonly onPick: (token: number) => void;
}) {
  return (
    <div className={styles.segments}>
      <table data-testid="mismatch-segments">
        <thead>
          <tr>
            <th>segment</th>
            <th>compared</th>
            <th>clipped</th>
            <th>masked</th>
          </tr>
        </thead>
        <tbody>
          {stats.segments.map((c, s) => {
            const segment = trajectory.segments[s];
            if (c.compared === 0 || !segment) return null;
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional and fixed
              <tr key={s} data-segment={s}>
                <td>
                  <button
                    type="button"
                    className={styles.link}
                    onClick={() => onPick(flat.segmentStarts[s] ?? 0)}
                  >
                    #{s} {segment.kind} · turn {segment.turn}
                  </button>
                </td>
                <td>{c.compared}</td>
                <td>{c.clipped}</td>
                <td>{c.masked}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Mismatch mode's panel (docs/mismatch.md): the lanes compared, the scale, the correction
 * replayed and its thresholds, "next mismatch", and the trajectory's statistics, per-segment
 * counts and running Σδ.
 */
export const MismatchPanel = memo(function MismatchPanel(props: MismatchPanelProps) {
  const { view, trajectory, flat, onPick } = props;
  const outcome = view.outcome;
  return (
    <section className={styles.panel} data-testid="mismatch-panel" aria-label="mismatch statistics">
      <Controls view={view} onNextMismatch={props.onNextMismatch} />
      {outcome && !outcome.ok && (
        <p className={styles.empty} data-testid="mismatch-message">
          {outcome.message}
        </p>
      )}
      {outcome?.ok && (
        <div className={styles.body}>
          <Stats stats={outcome.result.stats} onPick={onPick} />
          <SegmentCounts
            trajectory={trajectory}
            flat={flat}
            stats={outcome.result.stats}
            onPick={onPick}
          />
          <CumDeltaChart
            cumDelta={outcome.result.cumDelta}
            selected={props.selected}
            onPick={onPick}
          />
          {view.decomposition && (
            <DecompositionLanes
              decomposition={view.decomposition}
              selected={props.selected}
              onPick={onPick}
            />
          )}
          {view.routing && <RoutingSummary view={view.routing} />}
        </div>
      )}
    </section>
  );
});
