import { useCallback, useMemo, useRef, useState } from "react";
import { type TurnReport, turnTokenMarks } from "../../core/drift/prefixCheck";
import { tokenPosition } from "../../core/layout/tokenAnchor";
import { policyVersions, segmentPolicies } from "../../core/trajectory/policyVersions";
import type { Trajectory } from "../../core/trajectory/types";
import { useElementWidth } from "../../hooks/useElementWidth";
import { useMonospaceCellWidth } from "../../hooks/useMonospaceCellWidth";
import { useIsMismatch } from "../../stores/prefsStore";
import { CallsPanel } from "./CallsPanel";
import { DetailsPanel } from "./DetailsPanel";
import { LogprobChart } from "./LogprobChart";
import { MismatchPanel } from "./MismatchPanel";
import { PolicyStrip } from "./PolicyStrip";
import { GUTTER_PX, TOKEN_FONT } from "./rowMetrics";
import { saveRescoredAs } from "./saveRescoredAs";
import { TokenList } from "./TokenList";
import { Toolbar } from "./Toolbar";
import styles from "./TrajectoryView.module.css";
import { TurnStrip } from "./TurnStrip";
import { useAlternativePieces } from "./useAlternativePieces";
import { useFollowEnd } from "./useFollowEnd";
import { useMismatch } from "./useMismatch";
import { useRowVirtualizer } from "./useRowVirtualizer";
import { useTokenAnchor } from "./useTokenAnchor";
import { useTokenFind } from "./useTokenFind";
import { useTokenSelection } from "./useTokenSelection";
import { useTokenLayout, useTrajectoryModel } from "./useTrajectoryModel";

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
  readonly turnChecks?: {
    readonly report: TurnReport | undefined;
    readonly error?: string | undefined;
    readonly isPending?: boolean;
  };
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
  const mismatch = useMismatch(
    trajectory,
    episodeId === undefined ? { trajectory } : { episodeId },
  );
  // A row without sampled logprobs is drawn through its rescored lane (heatmap, chart, search).
  const model = useTrajectoryModel(mismatch.shown, pieces, controlTokens);
  const isMismatch = useIsMismatch();
  const { flat } = model;
  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(scrollRef);
  const cell = useMonospaceCellWidth(TOKEN_FONT);
  // One cell stays free for a hanging newline glyph; nothing is laid out before the width is known.
  const columns = width > 0 ? Math.max(16, Math.floor((width - GUTTER_PX) / cell) - 1) : 0;
  const layout = useTokenLayout(trajectory, model, columns);
  const [hovered, setHovered] = useState<number>();
  const rows = useRowVirtualizer(scrollRef, layout);
  const { virtualizer, isFastScrolling, expectJump, scrollToToken } = rows;
  const linked = tokenPosition(initialToken, flat.tokenCount);
  const keepInView = useTokenAnchor(scrollRef, layout, linked, scrollToToken);
  const { selected, select } = useTokenSelection(
    flat.tokenCount,
    initialToken,
    onSelectToken,
    keepInView,
  );
  useFollowEnd(isFollowingEnd, scrollRef, layout, virtualizer, expectJump);
  const { handleFind, handleNextLow, handleNextMismatch } = useTokenFind(
    model,
    selected,
    select,
    mismatch.shading?.delta,
  );
  const { rescore } = mismatch;
  const alternatives = useAlternativePieces(tokenizer, trajectory);
  const versions = useMemo(() => policyVersions(trajectory), [trajectory]);
  const policies = useMemo(
    () => (versions ? segmentPolicies(versions, flat.segmentStarts) : undefined),
    [versions, flat],
  );
  const handleStep = (delta: number) => {
    const from = selected === undefined ? 0 : selected + delta;
    select(Math.min(flat.tokenCount - 1, Math.max(0, from)), true);
  };
  const handlePick = useCallback((token: number) => select(token, true), [select]);
  const turnReport = turnChecks?.report;
  const [pickedTurn, setPickedTurn] = useState<number>();
  // The first turn that breaks the prefix is shown until the user picks another.
  const shownTurn = pickedTurn ?? turnReport?.turns.find((k) => k.class !== "CLEAN")?.turn;
  const turnMarks = useMemo(
    () =>
      turnReport && shownTurn !== undefined
        ? turnTokenMarks(turnReport, shownTurn, flat.tokenCount)
        : undefined,
    [turnReport, shownTurn, flat.tokenCount],
  );

  return (
    <div className={styles.view}>
      <div className={styles.top}>
        <Toolbar
          onFind={handleFind}
          onNextLowConfidence={handleNextLow}
          hasFailedCalls={model.failedCalls !== undefined}
          {...(canRescore && flat.tokenCount > 0 ? { onRescore: rescore.run } : {})}
          isRescoring={rescore.isPending}
          rescoreStatus={rescore.done}
          rescoreError={rescore.error}
          {...(rescore.runAnyway ? { onRescoreAnyway: rescore.runAnyway } : {})}
          {...(episodeId === undefined && rescore.done !== undefined
            ? { onSaveAs: () => saveRescoredAs(mismatch.scored) }
            : {})}
          {...(mismatch.solo ? { soloLane: mismatch.solo } : {})}
          lanes={mismatch.pair?.names}
        />
        <PolicyStrip versions={versions} tokenCount={flat.tokenCount} onPick={handlePick} />
        {mismatch.outcome && (
          <MismatchPanel
            trajectory={trajectory}
            flat={flat}
            view={mismatch}
            selected={selected}
            onPick={handlePick}
            onNextMismatch={handleNextMismatch}
          />
        )}
        <LogprobChart flat={flat} selected={selected} onPick={handlePick} />
        <CallsPanel trajectory={trajectory} selected={selected} onPick={handlePick} />
        {turnChecks && (
          <TurnStrip
            report={turnReport}
            error={turnChecks.error}
            isPending={turnChecks.isPending === true}
            selected={shownTurn}
            onSelect={setPickedTurn}
            onShowToken={handlePick}
          />
        )}
      </div>
      <TokenList
        trajectory={trajectory}
        model={model}
        layout={layout}
        virtualizer={virtualizer}
        scrollRef={scrollRef}
        selected={selected}
        isFastScrolling={isFastScrolling}
        onHover={setHovered}
        onSelect={(token) => select(token, false)}
        onStep={handleStep}
        mismatch={mismatch.shading}
        isHeatmapForced={isMismatch && mismatch.solo !== undefined}
        turnMarks={turnMarks}
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
        {...(onBranch ? { onBranch } : {})}
      />
    </div>
  );
}
