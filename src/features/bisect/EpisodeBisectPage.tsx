import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import { BisectLab } from "./BisectLab";
import styles from "./BisectLab.module.css";

/** `/episodes/:id/bisect[?knob=]`: an episode's rescoring bisect lab (docs/bisect.md). */
export function EpisodeBisectPage() {
  const { id = "" } = useParams();
  const { data: trajectory, error } = useQuery(episodeQueries.detail(id));
  const base = `/episodes/${encodeURIComponent(id)}`;
  if (error) return <div className={styles.error}>{error.message}</div>;
  if (!trajectory) return <div className={styles.muted}>loading {id}…</div>;
  return (
    <div className={styles.page}>
      <nav className={styles.nav}>
        <strong>{trajectory.id}</strong>
        <span className={styles.muted}>{trajectory.status}</span>
        <Link to={base}>Tokens</Link>
        <Link to={`${base}/drift`}>Drift</Link>
        <span aria-current="page">Bisect</span>
      </nav>
      <BisectLab target={{ episodeId: id }} />
    </div>
  );
}
