import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import { useTokenPieces } from "../../hooks/useTokenPieces";
import styles from "../rollouts/ComparePage.module.css";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";

/** `/episodes/compare/:a/:b?from=N`: two episodes (branches) side by side, both opened at token N. */
export function EpisodeComparePage() {
  const { a = "", b = "" } = useParams();
  const [searchParams] = useSearchParams();
  const fromParam = searchParams.get("from");
  const from = fromParam !== null && /^\d+$/.test(fromParam) ? Number(fromParam) : undefined;
  return (
    <div className={styles.page}>
      <nav className={styles.nav} aria-label="compare navigation">
        <Link to={`/episodes/compare/${b}/${a}${from === undefined ? "" : `?from=${from}`}`}>
          swap sides
        </Link>
        {from !== undefined && <span>from the fork point #{from}</span>}
      </nav>
      <div className={styles.sides}>
        <Side id={a} from={from} />
        <Side id={b} from={from} />
      </div>
    </div>
  );
}

function Side({ id, from }: { readonly id: string; readonly from: number | undefined }) {
  const { data: trajectory, error } = useQuery(episodeQueries.detail(id));
  const tokenIds = useMemo(
    () => trajectory?.segments.flatMap((s) => s.tokenIds) ?? [],
    [trajectory],
  );
  const { pieces, controlTokens, isLoading } = useTokenPieces(trajectory?.tokenizer, tokenIds);
  return (
    <section className={styles.side} aria-label={`episode ${id}`} data-testid="compare-side">
      <header className={styles.meta}>
        <Link to={`/episodes/${encodeURIComponent(id)}`}>
          <strong>{id}</strong>
        </Link>
        {trajectory &&
          ` · ${trajectory.status} · reward ${trajectory.reward ?? "—"} · ${tokenIds.length.toLocaleString("en-US")} tokens`}
      </header>
      {error && <p className={styles.error}>{error.message}</p>}
      {trajectory && (
        <div className={styles.view}>
          <TrajectoryView
            key={trajectory.id}
            trajectory={trajectory}
            pieces={pieces}
            tokenizer={trajectory.tokenizer}
            isTokenizerLoading={isLoading}
            controlTokens={controlTokens}
            {...(from === undefined ? {} : { initialToken: from })}
          />
        </div>
      )}
    </section>
  );
}
