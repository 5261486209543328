import { useState } from "react";
import type { Trajectory } from "../../core/trajectory/types";
import { useIsMismatch } from "../../stores/prefsStore";
import { DetailsPanel } from "./DetailsPanel";
import { TokenList } from "./TokenList";
import styles from "./TrajectoryView.module.css";
import type { TurnChecks } from "./TurnStrip";
import { useAlternativePieces } from "./useAlternativePieces";
import { useFollowEnd } from "./useFollowEnd";
import { useListLayout } from "./useListLayout";
import { useMismatch } from "./useMismatch";
import { useTokenFind } from "./useTokenFind";
import { useTrajectoryModel } from "./useTrajectoryModel";
import { useTurnMarks } from "./useTurnMarks";
import { usePolicies, useViewSelection } from "./useViewSelection";
import { ViewTop } from "./ViewTop";

export interface TrajectoryViewProps {
  readonly trajectory: Trajectory;
  /** Display piece per token; `#<id>` placeholders are shown without them. */
  readonly pieces?: readonly string[];
  /**
   * The tokenizer the pieces come from: it also decodes the top-k alternatives. While it loads
   * (`isTokenizerLoading`) the token list says so instead of showing raw ids.
   */
  readonly tokenizer?: string | undefined;
  readonly isTokenizerLoading?: boolean;
  /** Ids the tokenizer lists as added or special (chips); see `useControlTokens`. */
  readonly controlTokens?: ReadonlySet<number>;
  /** Token index to open scrolled to and selected (deep link). */
  readonly initialToken?: number;
  readonly onSelectToken?: (token: number) => void;
  /** Keep the newest token in view as the trajectory grows, unless the user scrolled away. */
  readonly isFollowingEnd?: boolean;
  /** Offers "Branch here" (details panel, `b` key) and gets the token a branch should start at. */
  readonly onBranch?: (token: number) => void;
  /**
   * The stored or live episode this trajectory is: "Rescore" then scores it by id. Without one,
   * the trajectory itself (its ids and sampling parameters) is sent.
   */
  readonly episodeId?: string;
  /** Offer "Rescore" (POST /api/rescore; needs the server). Default true. */
  readonly canRescore?: boolean;
  /**
   * The per-turn prefix check (useTurnChecks): shown as a turn strip above the tokens, the
   * selected turn's dropped and inserted tokens marked in them. Absent: no strip.
   */
  readonly turnChecks?: TurnChecks;
}

/**
 * Every token of one trajectory: coloured by loss mask, virtualized, searchable, with details.
 * How the list stays fast (virtualizer, scaled scroll, recycled rows, canvas frames): docs/token-view.md.
 */
export function TrajectoryView({
  trajectory,
  pieces,
  tokenizer,
  isTokenizerLoading = false,
  controlTokens,
  initialToken,
  onSelectToken,
  isFollowingEnd = false,
  onBranch,
  episodeId,
  canRescore = true,
  turnChecks,
}: TrajectoryViewProps) {
  const target = episodeId === undefined ? { trajectory } : { episodeId };
  const mismatch = useMismatch(trajectory, target);
  // A row without sampled logprobs is drawn through its rescored lane (heatmap, chart, search).
  const model = useTrajectoryModel(mismatch.shown, pieces, controlTokens);
  const isMismatch = useIsMismatch();
  const { flat } = model;
  const list = useListLayout(trajectory, model);
  const { scrollRef, layout, virtualizer } = list;
  const [hovered, setHovered] = useState<number>();
  const selection = useViewSelection(list, flat.tokenCount, initialToken, onSelectToken);
  const { selected, select, handlePick } = selection;
  useFollowEnd(isFollowingEnd, scrollRef, layout, virtualizer, list.expectJump);
  const find = useTokenFind(model, selected, select, mismatch.shading?.delta);
  const alternatives = useAlternativePieces(tokenizer, trajectory);
  const { versions, policies } = usePolicies(trajectory, flat);
  const turns = useTurnMarks(turnChecks?.report, flat.tokenCount);

  return (
    <div className={styles.view}>
      <ViewTop
        trajectory={trajectory}
        model={model}
        mismatch={mismatch}
        versions={versions}
        selected={selected}
        canRescore={canRescore}
        isEpisode={episodeId !== undefined}
        find={find}
        turnChecks={turnChecks}
        turns={turns}
        onPick={handlePick}
      />
      <TokenList
        trajectory={trajectory}
        model={model}
        layout={layout}
        virtualizer={virtualizer}
        scrollRef={scrollRef}
        selected={selected}
        isFastScrolling={list.isFastScrolling}
        onHover={setHovered}
        onSelect={(token) => select(token, false)}
        onStep={selection.handleStep}
        mismatch={mismatch.shading}
        isHeatmapForced={isMismatch && mismatch.solo !== undefined}
        turnMarks={turns.turnMarks}
        policies={policies}
        loading={isTokenizerLoading ? `loading tokenizer ${tokenizer}…` : undefined}
        {...(onBranch && selected !== undefined ? { onBranchKey: () => onBranch(selected) } : {})}
      />
      <DetailsPanel
        trajectory={trajectory}
        model={model}
        token={hovered ?? selected}
        alternatives={alternatives}
        lanePair={mismatch.pair}
        verdicts={mismatch.verdicts}
        replays={mismatch.replays}
        onAskReplays={mismatch.onAskReplays}
        routing={mismatch.routing}
        decomposition={mismatch.decomposition}
        {...(onBranch ? { onBranch } : {})}
      />
    </div>
  );
}
