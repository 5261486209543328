import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { driftQueries } from "../../api/drift";
import { type DriftHunk, driftHunks } from "../../core/drift/driftHunks";
import { UNKNOWN_TOKENIZER_REASON } from "../../core/drift/driftInputs";
import type { DriftMode } from "../../core/drift/types";
import { trajectoryIdsAbsentReason } from "../../core/formats/idsAbsent";
import { flattenSegments } from "../../core/trajectory/flatten";
import type { SegmentKind, Trajectory } from "../../core/trajectory/types";
import type { RecordedTokens } from "./DriftLanes";
import styles from "./DriftPanel.module.css";
import { DriftSummary } from "./DriftSummary";
import { HunkCard } from "./HunkCard";
import { TokenizerSelect } from "./TokenizerSelect";
import { useDriftTokenizer } from "./useDriftTokenizer";

/** Shared tokens shown on each side of a region. */
const CONTEXT = 6;

const MODE_LABELS: Readonly<Record<DriftMode, string>> = {
  roundtrip: "round trip",
  template: "template",
  text: "text",
};

export interface DriftPanelProps {
  readonly trajectory: Trajectory;
  readonly mode: DriftMode;
  readonly onModeChange: (mode: DriftMode) => void;
  /** Link to token `token` (recorded index) in the trajectory view. */
  readonly tokenHref: (token: number) => string;
}

/** The drift check of `trajectory` with the chosen tokenizer, its `mode` result and its hunks. */
function useTrajectoryDrift(trajectory: Trajectory, mode: DriftMode) {
  const { tokenizer, reason, error: catalogError } = useDriftTokenizer(trajectory);
  // A record without token ids has nothing to compare: say why instead of checking its text.
  const idsAbsent = trajectoryIdsAbsentReason(trajectory);
  // Ids nothing ties to a vocabulary are not checked with a guess (the file scan's rule).
  const unknown = reason === "default" ? UNKNOWN_TOKENIZER_REASON : undefined;
  const drift = useQuery({
    ...driftQueries.trajectory(tokenizer ?? "", trajectory),
    enabled: tokenizer !== undefined && idsAbsent === undefined && unknown === undefined,
  });
  const results = drift.data?.results ?? [];
  const result = results.find((r) => r.mode === mode) ?? results[0];
  const recorded = useMemo((): RecordedTokens | undefined => {
    if (!drift.data) return undefined;
    const flat = flattenSegments(trajectory.segments);
    const kinds: SegmentKind[] = [];
    for (const s of trajectory.segments) for (const _ of s.tokenIds) kinds.push(s.kind);
    return { pieces: drift.data.pieces, kinds, lossMask: flat.lossMask };
  }, [drift.data, trajectory]);
  const hunks = useMemo(
    () =>
      result
        ? driftHunks(
            result,
            trajectory.segments.flatMap((s) => s.tokenIds),
            CONTEXT,
          )
        : [],
    [result, trajectory],
  );
  return { tokenizer, catalogError, idsAbsent, unknown, drift, results, result, recorded, hunks };
}

/**
 * The current region among `regionCount`, and `jump` to another (wrapping), scrolling its hunk's
 * card into view; `]` and `[` jump to the next and previous.
 */
function useRegionJumps(regionCount: number, hunks: readonly DriftHunk[]) {
  const [current, setCurrent] = useState(0);
  const cards = useRef(new Map<number, HTMLElement>());
  const jump = (region: number) => {
    if (regionCount === 0) return;
    const k = (region + regionCount) % regionCount;
    setCurrent(k);
    const hunk = hunks.findIndex((h) => h.regions.includes(k));
    cards.current.get(hunk)?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  };
  const jumpRef = useRef(jump);
  jumpRef.current = jump;
  useEffect(() => {
    const handleKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey) return;
      if (event.key === "]") jumpRef.current(current + 1);
      else if (event.key === "[") jumpRef.current(current - 1);
    };
    window.addEventListener("keydown", handleKey);
    return () => window.removeEventListener("keydown", handleKey);
  }, [current]);
  return { current, setCurrent, jump, cards: cards.current };
}

/** One trajectory's drift: mode tabs, verdict and numbers, and every region as a two-lane diff. */
export function DriftPanel({ trajectory, mode, onModeChange, tokenHref }: DriftPanelProps) {
  const { tokenizer, catalogError, idsAbsent, unknown, drift, results, result, recorded, hunks } =
    useTrajectoryDrift(trajectory, mode);
  const regionCount = result?.regions.length ?? 0;
  const { current, setCurrent, jump, cards } = useRegionJumps(regionCount, hunks);

  if (idsAbsent !== undefined) {
    return (
      <div className={styles.panel} data-testid="drift-panel">
        <p className={styles.muted} role="note" data-testid="ids-absent">
          Drift and mismatch checks are off: {idsAbsent}
        </p>
      </div>
    );
  }

  if (unknown !== undefined) {
    return (
      <div className={styles.panel} data-testid="drift-panel">
        <div className={styles.controls}>
          <TokenizerSelect trajectory={trajectory} />
        </div>
        <p className={styles.muted} role="note" data-testid="drift-unknown-tokenizer">
          Not checked: {unknown}
        </p>
      </div>
    );
  }

  return (
    <div className={styles.panel} data-testid="drift-panel">
      <div className={styles.controls}>
        <ModeTabs
          available={results.map((r) => r.mode)}
          selected={result?.mode}
          onSelect={(m) => {
            setCurrent(0);
            onModeChange(m);
          }}
        />
        <TokenizerSelect trajectory={trajectory} />
        {regionCount > 0 && (
          <div className={styles.nav}>
            <button type="button" onClick={() => jump(current - 1)} title="previous region ([)">
              ‹ prev
            </button>
            <span data-testid="region-position">
              region {Math.min(current, regionCount - 1) + 1} of {regionCount}
            </span>
            <button type="button" onClick={() => jump(current + 1)} title="next region (])">
              next ›
            </button>
          </div>
        )}
      </div>
      {catalogError && <p className={styles.error}>tokenizers: {catalogError}</p>}
      {drift.isError && <p className={styles.error}>{drift.error.message}</p>}
      {drift.isPending && tokenizer && (
        <p className={styles.muted}>retokenizing with {tokenizer}…</p>
      )}
      {result && <DriftSummary result={result} tokenHref={tokenHref} />}
      {result && recorded && (
        <div className={styles.hunks}>
          {hunks.map((hunk, h) => (
            <HunkCard
              key={hunk.t[0]}
              ref={(el) => {
                if (el) cards.set(h, el);
                else cards.delete(h);
              }}
              hunk={hunk}
              result={result}
              recorded={recorded}
              current={current}
              tokenHref={tokenHref}
              onSelectRegion={setCurrent}
            />
          ))}
        </div>
      )}
    </div>
  );
}

interface ModeTabsProps {
  /** The modes the record could be checked in. */
  readonly available: readonly DriftMode[];
  readonly selected: DriftMode | undefined;
  readonly onSelect: (mode: DriftMode) => void;
}

/** The three drift checks as tabs; one the record cannot run is disabled and says why. */
function ModeTabs({ available, selected, onSelect }: ModeTabsProps) {
  return (
    <div className={styles.modes} role="tablist" aria-label="drift check">
      {(["roundtrip", "template", "text"] as const).map((m) => {
        const isAvailable = available.includes(m);
        return (
          <button
            key={m}
            type="button"
            role="tab"
            aria-selected={selected === m}
            disabled={!isAvailable}
            title={
              isAvailable
                ? undefined
                : `this record has no ${m === "template" ? "messages" : "text"} to check`
            }
            onClick={() => onSelect(m)}
          >
            {MODE_LABELS[m]}
          </button>
        );
      })}
    </div>
  );
}
