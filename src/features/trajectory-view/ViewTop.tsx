import type { policyVersions } from "../../core/trajectory/policyVersions";
import type { Trajectory } from "../../core/trajectory/types";
import { CallsPanel } from "./CallsPanel";
import { LogprobChart } from "./LogprobChart";
import { MismatchPanel } from "./MismatchPanel";
import { PolicyStrip } from "./PolicyStrip";
import { saveRescoredAs } from "./saveRescoredAs";
import { Toolbar } from "./Toolbar";
import styles from "./TrajectoryView.module.css";
import { type TurnChecks, TurnStrip } from "./TurnStrip";
import type { MismatchView } from "./useMismatch";
import type { useTokenFind } from "./useTokenFind";
import type { TrajectoryModel } from "./useTrajectoryModel";
import type { useTurnMarks } from "./useTurnMarks";

export interface ViewTopProps {
  readonly trajectory: Trajectory;
  readonly model: TrajectoryModel;
  readonly mismatch: MismatchView;
  readonly versions: ReturnType<typeof policyVersions>;
  readonly selected: number | undefined;
  readonly canRescore: boolean;
  /** A stored episode (its rescored lane is kept with it) rather than a file row (Save as…). */
  readonly isEpisode: boolean;
  readonly find: ReturnType<typeof useTokenFind>;
  readonly turnChecks: TurnChecks | undefined;
  readonly turns: ReturnType<typeof useTurnMarks>;
  readonly onPick: (token: number) => void;
}

/** Above the tokens: toolbar, policy versions, mismatch panel, logprob chart, calls, turn strip. */
export function ViewTop(props: ViewTopProps) {
  const { trajectory, model, mismatch, selected, find, turnChecks, turns, onPick } = props;
  const { flat } = model;
  const { rescore } = mismatch;
  return (
    <div className={styles.top}>
      <Toolbar
        onFind={find.handleFind}
        onNextLowConfidence={find.handleNextLow}
        hasFailedCalls={model.failedCalls !== undefined}
        {...(props.canRescore && flat.tokenCount > 0 ? { onRescore: rescore.run } : {})}
        isRescoring={rescore.isPending}
        rescoreStatus={rescore.done}
        rescoreError={rescore.error}
        {...(rescore.runAnyway ? { onRescoreAnyway: rescore.runAnyway } : {})}
        {...(!props.isEpisode && rescore.done !== undefined
          ? { onSaveAs: () => saveRescoredAs(mismatch.scored) }
          : {})}
        {...(mismatch.solo ? { soloLane: mismatch.solo } : {})}
        lanes={mismatch.pair?.names}
      />
      <PolicyStrip versions={props.versions} tokenCount={flat.tokenCount} onPick={onPick} />
      {mismatch.outcome && (
        <MismatchPanel
          trajectory={trajectory}
          flat={flat}
          view={mismatch}
          selected={selected}
          onPick={onPick}
          onNextMismatch={find.handleNextMismatch}
        />
      )}
      <LogprobChart flat={flat} selected={selected} onPick={onPick} />
      <CallsPanel trajectory={trajectory} selected={selected} onPick={onPick} />
      {turnChecks && (
        <TurnStrip
          report={turnChecks.report}
          error={turnChecks.error}
          isPending={turnChecks.isPending === true}
          selected={turns.shownTurn}
          onSelect={turns.setPickedTurn}
          onShowToken={onPick}
        />
      )}
    </div>
  );
}
