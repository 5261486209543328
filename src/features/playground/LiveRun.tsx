import { useMutation } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { abortEpisode } from "../../api/episodes";
import { finalAnswer } from "../../core/trajectory/finalAnswer";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import { ForkForm } from "../branches/ForkForm";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";
import { HumanReplyBox } from "./HumanReplyBox";
import styles from "./LiveRun.module.css";
import { RunHeader } from "./RunHeader";
import { StreamingTurn } from "./StreamingTurn";
import { useLiveEpisode } from "./useLiveEpisode";

/** One running (or finished) episode as it streams in. Mount with `key={episodeId}`. */
export function LiveRun({
  episodeId,
  tokenizer,
}: {
  readonly episodeId: string;
  readonly tokenizer: string | undefined;
}) {
  const { state, trajectory, streamError } = useLiveEpisode(episodeId, tokenizer);
  const tokenIds = useMemo(() => trajectory.segments.flatMap((s) => s.tokenIds), [trajectory]);
  const { pieces, controlTokens, isLoading } = useTokenPieces(tokenizer, tokenIds);
  const abort = useMutation({ mutationFn: () => abortEpisode(episodeId) });
  const answer = useMemo(() => finalAnswer(trajectory), [trajectory]);
  // A live episode branches from the tokens it has so far (the server forks its snapshot).
  const [forkAt, setForkAt] = useState<number>();
  return (
    <div className={styles.run}>
      <RunHeader
        state={state}
        tokens={tokenIds.length}
        finalAnswer={answer}
        isAborting={abort.isPending}
        onAbort={() => abort.mutate()}
      />
      {streamError && (
        <div className={styles.error}>
          {streamError}. <Link to={`/episodes/${episodeId}`}>Open the stored episode</Link>
        </div>
      )}
      {abort.error && <div className={styles.error}>{abort.error.message}</div>}
      {state.waiting && <HumanReplyBox episodeId={episodeId} waiting={state.waiting} />}
      {forkAt !== undefined && (
        <ForkForm
          key={forkAt}
          parent={trajectory}
          source={{ episode: episodeId }}
          index={forkAt}
          onClose={() => setForkAt(undefined)}
        />
      )}
      <div className={styles.view}>
        {trajectory.segments.length === 0 ? (
          <div className={styles.placeholder}>waiting for the prompt segment…</div>
        ) : (
          <TrajectoryView
            trajectory={trajectory}
            pieces={pieces}
            tokenizer={tokenizer}
            isTokenizerLoading={isLoading}
            controlTokens={controlTokens}
            isFollowingEnd
            onBranch={setForkAt}
          />
        )}
      </div>
      {state.partial && <StreamingTurn partial={state.partial} />}
    </div>
  );
}
