import { memo, useState } from "react";
import { HEAT_FLOORS, percentLabel } from "../../core/layout/heatScale";
import {
  prefsActions,
  useHeatFloor,
  useIsHeatmap,
  useIsMismatch,
  useLowConfidenceThreshold,
  useMismatchExtent,
  useShowWhitespace,
} from "../../stores/prefsStore";
import { Legend } from "./Legend";
import { RescoreControls } from "./RescoreControls";
import styles from "./Toolbar.module.css";

export type FindMode = "text" | "id";

interface ToolbarProps {
  readonly onFind: (query: string, mode: FindMode) => boolean;
  readonly onNextLowConfidence: (threshold: number) => boolean;
  /** The trajectory holds a tool call that failed to parse (the legend explains its mark). */
  readonly hasFailedCalls: boolean;
  /** Scores the trajectory's ids with SGLang into a `rescored` lane (docs/mismatch.md). */
  readonly onRescore?: () => void;
  /** A rescore is under way. */
  readonly isRescoring?: boolean;
  /** What the last rescore gave (model, weights) or why it failed. */
  readonly rescoreStatus?: string;
  readonly rescoreError?: string;
  /** After the server's family check refused (409): rescore anyway. */
  readonly onRescoreAnyway?: () => void;
  /** Downloads the row with its rescored lane as a new file (file rows only). */
  readonly onSaveAs?: () => void;
  /** A lane shown on its own in place of missing sampled logprobs. */
  readonly soloLane?: string;
  /** The lanes compared in mismatch mode, for the legend: [a, b]. */
  readonly lanes?: readonly [string, string];
}

/** Find, next-low-confidence, display toggles and the legend. */
/** Memoized: the view re-renders on every scroll frame, the toolbar only when its handlers change. */
export const Toolbar = memo(function Toolbar({
  onFind,
  onNextLowConfidence,
  hasFailedCalls,
  onRescore,
  isRescoring = false,
  rescoreStatus,
  rescoreError,
  onRescoreAnyway,
  onSaveAs,
  soloLane,
  lanes,
}: ToolbarProps) {
  const [message, setMessage] = useState("");
  const isHeatmap = useIsHeatmap();
  const heatFloor = useHeatFloor();
  const isMismatch = useIsMismatch();
  const mismatchExtent = useMismatchExtent();

  return (
    <div className={styles.toolbar}>
      <FindForm onFind={(query, mode) => setMessage(onFind(query, mode) ? "" : "no match")} />
      <LowConfidenceStep
        onNext={(threshold) =>
          setMessage(onNextLowConfidence(threshold) ? "" : "none below threshold")
        }
      />
      <span className={styles.message} role="status">
        {message}
      </span>
      <div className={styles.group}>
        <DisplayToggles isHeatmap={isHeatmap} heatFloor={heatFloor} isMismatch={isMismatch} />
        {onRescore && (
          <RescoreControls
            onRescore={onRescore}
            isRescoring={isRescoring}
            {...(rescoreStatus === undefined ? {} : { rescoreStatus })}
            {...(rescoreError === undefined ? {} : { rescoreError })}
            {...(onRescoreAnyway ? { onRescoreAnyway } : {})}
            {...(onSaveAs ? { onSaveAs } : {})}
            {...(soloLane === undefined ? {} : { soloLane })}
          />
        )}
      </div>
      <Legend
        mode={isMismatch ? "mismatch" : isHeatmap ? "heatmap" : "segments"}
        heatFloor={heatFloor}
        mismatchExtent={mismatchExtent}
        lanes={lanes}
        hasFailedCalls={hasFailedCalls}
      />
    </div>
  );
});

/** "Find next" by text or token id. */
function FindForm({ onFind }: { readonly onFind: (query: string, mode: FindMode) => void }) {
  const [query, setQuery] = useState("");
  const [mode, setMode] = useState<FindMode>("text");
  return (
    <form
      className={styles.group}
      onSubmit={(event) => {
        event.preventDefault();
        onFind(query, mode);
      }}
    >
      <select
        aria-label="find mode"
        value={mode}
        onChange={(event) => setMode(event.target.value === "id" ? "id" : "text")}
      >
        <option value="text">text</option>
        <option value="id">token id</option>
      </select>
      <input
        aria-label="find"
        placeholder={mode === "text" ? "find text…" : "find token id…"}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      <button type="submit">Find next</button>
    </form>
  );
}

/** The low-confidence threshold (a preference) and the step to the next token below it. */
function LowConfidenceStep({ onNext }: { readonly onNext: (threshold: number) => void }) {
  const threshold = useLowConfidenceThreshold();
  return (
    <div className={styles.group}>
      <label>
        logprob &lt;{" "}
        <input
          aria-label="low-confidence threshold"
          className={styles.number}
          type="number"
          step="0.5"
          max="0"
          value={threshold}
          onChange={(event) => {
            const value = Number(event.target.value);
            if (Number.isFinite(value)) prefsActions.thresholdChanged(value);
          }}
        />
      </label>
      <button type="button" onClick={() => onNext(threshold)}>
        Next low-confidence
      </button>
    </div>
  );
}

interface DisplayTogglesProps {
  readonly isHeatmap: boolean;
  readonly heatFloor: number;
  readonly isMismatch: boolean;
}

/** Whitespace, logprob heatmap (with its floor) and mismatch shading: preferences. */
function DisplayToggles({ isHeatmap, heatFloor, isMismatch }: DisplayTogglesProps) {
  const showWhitespace = useShowWhitespace();
  return (
    <>
      <label>
        <input type="checkbox" checked={showWhitespace} onChange={prefsActions.whitespaceToggled} />{" "}
        whitespace
      </label>
      <label>
        <input type="checkbox" checked={isHeatmap} onChange={prefsActions.heatmapToggled} /> logprob
        heatmap
      </label>
      {isHeatmap && (
        <label>
          down to{" "}
          <select
            aria-label="heatmap floor"
            value={heatFloor}
            onChange={(event) => prefsActions.heatFloorChanged(Number(event.target.value))}
          >
            {HEAT_FLOORS.map((floor) => (
              <option key={floor} value={floor}>
                {percentLabel(floor)}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        <input type="checkbox" checked={isMismatch} onChange={prefsActions.mismatchToggled} />{" "}
        mismatch
      </label>
    </>
  );
}
