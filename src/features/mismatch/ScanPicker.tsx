import { CORRECTION_KINDS, type CorrectionKind } from "../../core/mismatch/mismatch";
import styles from "./FileMismatchBar.module.css";
import type { ScanPickerDraft } from "./scanPicker";

/** Lane names offered as suggestions (any name a file carries may be typed). */
const LANE_SUGGESTIONS = ["sampled", "trainer", "rescored", "reference", "teacher", "generation"];

/**
 * Which two lanes the file scan compares (both empty: each trajectory's default) and which
 * correction it replays with its threshold C: `rollout-lens mismatch --lanes --correction --cap`.
 */
export function ScanPicker({
  draft,
  onChange,
  problem,
  disabled,
}: {
  readonly draft: ScanPickerDraft;
  readonly onChange: (draft: ScanPickerDraft) => void;
  readonly problem: string | undefined;
  readonly disabled: boolean;
}) {
  const isTrunc = draft.kind.endsWith("-trunc");
  return (
    <fieldset className={styles.picker} disabled={disabled} data-testid="mismatch-picker">
      <datalist id="mismatch-lane-names">
        {LANE_SUGGESTIONS.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <label title="the lane δ = a − b takes first; empty: each trajectory's default (trainer, rescored, reference…)">
        lane a{" "}
        <input
          aria-label="mismatch lane a"
          list="mismatch-lane-names"
          placeholder="default"
          size={9}
          value={draft.laneA}
          onChange={(e) => onChange({ ...draft, laneA: e.target.value })}
        />
      </label>
      <label title="π_rollout: empty: each trajectory's sampled logprobs">
        vs b{" "}
        <input
          aria-label="mismatch lane b"
          list="mismatch-lane-names"
          placeholder="default"
          size={9}
          value={draft.laneB}
          onChange={(e) => onChange({ ...draft, laneB: e.target.value })}
        />
      </label>
      <label>
        correction{" "}
        <select
          aria-label="mismatch correction"
          value={draft.kind}
          onChange={(e) => onChange({ ...draft, kind: e.target.value as CorrectionKind })}
        >
          {CORRECTION_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label
        title={
          isTrunc ? "clip where the ratio exceeds C" : "mask where the ratio is outside [1/C, C]"
        }
      >
        C{" "}
        <input
          aria-label="mismatch threshold"
          type="number"
          min="0"
          step="0.1"
          className={styles.cap}
          value={draft.cap}
          onChange={(e) => onChange({ ...draft, cap: e.target.value })}
        />
      </label>
      {problem && <span className={styles.error}>{problem}</span>}
    </fieldset>
  );
}
