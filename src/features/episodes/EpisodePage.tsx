import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import { finalAnswer } from "../../core/trajectory/finalAnswer";
import { useTokenParam } from "../../hooks/useTokenParam";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import { useTurnChecks } from "../../hooks/useTurnChecks";
import { ForkForm } from "../branches/ForkForm";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";
import styles from "./EpisodePage.module.css";

/** `/episodes/:id?token=N`: a stored (or running) episode in the trajectory view. */
export function EpisodePage() {
  const { id = "" } = useParams();
  const { data: trajectory, error } = useQuery(episodeQueries.detail(id));
  const { data: episodes } = useQuery(episodeQueries.list());
  const [forkAt, setForkAt] = useState<number>();
  const branchCount = episodes?.filter((e) => e.parentId === id).length ?? 0;
  const tokenIds = useMemo(
    () => trajectory?.segments.flatMap((s) => s.tokenIds) ?? [],
    [trajectory],
  );
  const { pieces, controlTokens, isLoading } = useTokenPieces(trajectory?.tokenizer, tokenIds);
  const turnChecks = useTurnChecks(trajectory?.tokenizer, trajectory);
  const [initialToken, handleSelectToken] = useTokenParam();
  if (error) return <div className={styles.error}>{error.message}</div>;
  if (!trajectory) return <div className={styles.muted}>loading {id}…</div>;
  const answer = finalAnswer(trajectory);
  return (
    <>
      <div className={styles.meta}>
        <strong>{trajectory.id}</strong>
        <span
          className={`${styles.status} ${styles[trajectory.status]}`}
          data-testid="episode-status"
        >
          {trajectory.status}
        </span>
        {trajectory.endReason !== undefined && (
          <span
            className={trajectory.status === "completed" ? styles.reasonNormal : styles.reason}
            data-testid="episode-reason"
          >
            {trajectory.endReason}
          </span>
        )}
        <span>{trajectory.model}</span>
        <span>{trajectory.createdAt}</span>
        <Link to={`/episodes/${encodeURIComponent(trajectory.id)}/drift`}>Drift</Link>
        <Link to={`/episodes/${encodeURIComponent(trajectory.id)}/bisect`}>Bisect</Link>
        {trajectory.lineage && (
          <span data-testid="episode-lineage">
            branch of{" "}
            <Link
              to={`/episodes/${encodeURIComponent(trajectory.lineage.parentId)}?token=${trajectory.lineage.forkIndex}`}
            >
              {trajectory.lineage.parentId}
            </Link>{" "}
            at #{trajectory.lineage.forkIndex}
            {trajectory.lineage.editedToolResults && " (tool result edited)"}
          </span>
        )}
        {branchCount > 0 && (
          <Link to={`/episodes/${encodeURIComponent(trajectory.id)}/branches`}>
            {branchCount} branch{branchCount === 1 ? "" : "es"}
          </Link>
        )}
        {trajectory.status === "running" && (
          <Link to={`/playground?episode=${trajectory.id}`}>follow it live</Link>
        )}
      </div>
      {answer !== undefined && (
        <div className={styles.answer} data-testid="final-answer">
          <span className={styles.label}>final answer</span> {answer}
        </div>
      )}
      {forkAt !== undefined && (
        <ForkForm
          key={forkAt}
          parent={trajectory}
          index={forkAt}
          onClose={() => setForkAt(undefined)}
        />
      )}
      <div className={styles.view}>
        <TrajectoryView
          key={trajectory.id}
          trajectory={trajectory}
          pieces={pieces}
          tokenizer={trajectory.tokenizer}
          isTokenizerLoading={isLoading}
          controlTokens={controlTokens}
          initialToken={initialToken}
          onSelectToken={handleSelectToken}
          episodeId={trajectory.id}
          turnChecks={turnChecks}
          {...(trajectory.status === "running" ? {} : { onBranch: setForkAt })}
        />
      </div>
    </>
  );
}
