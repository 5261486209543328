import { useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearchParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import styles from "./EpisodeHistory.module.css";

function when(createdAt: string): string {
  const date = new Date(createdAt);
  return Number.isNaN(date.getTime()) ? createdAt : date.toLocaleTimeString("en-GB");
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Episodes the server knows, newest first; each opens in the trajectory view. */
export function EpisodeHistory({ limit }: { readonly limit?: number }) {
  const { data: episodes, error, isPending } = useQuery(episodeQueries.list());
  const { id: openId } = useParams();
  const [searchParams] = useSearchParams();
  const current = openId ?? searchParams.get("episode");
  const shown = limit === undefined ? episodes : episodes?.slice(0, limit);
  return (
    <nav className={styles.history} aria-label="episode history">
      <h3 className={styles.title}>History</h3>
      {error && <div className={styles.error}>{error.message}</div>}
      {isPending && <div className={styles.muted}>loading…</div>}
      {episodes?.length === 0 && <div className={styles.muted}>no episodes yet</div>}
      <ul className={styles.list}>
        {shown?.map((e) => (
          <li key={e.id}>
            <Link
              to={`/episodes/${e.id}`}
              className={`${styles.item} ${e.id === current ? styles.current : ""}`}
              data-testid="history-item"
              data-episode={e.id}
            >
              <span className={`${styles.status} ${styles[e.status]}`}>{e.status}</span>
              <span className={styles.prompt} title={e.prompt}>
                {e.prompt}
              </span>
              <span className={styles.muted}>
                {when(e.createdAt)}
                {e.status === "running"
                  ? " · in progress"
                  : ` · ${e.tokens.toLocaleString("en-US")} tok · ${plural(e.turns, "turn")} · ${plural(e.toolCalls, "tool call")}`}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
