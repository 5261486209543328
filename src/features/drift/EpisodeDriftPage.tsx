import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import { DriftPanel } from "./DriftPanel";
import styles from "./EpisodeDriftPage.module.css";
import { useDriftModeParam } from "./useDriftModeParam";

/** `/episodes/:id/drift[?mode=]`: a stored episode's retokenization drift. */
export function EpisodeDriftPage() {
  const { id = "" } = useParams();
  const { data: trajectory, error } = useQuery(episodeQueries.detail(id));
  const [mode, setMode] = useDriftModeParam();
  const base = `/episodes/${encodeURIComponent(id)}`;
  if (error) return <div className={styles.error}>{error.message}</div>;
  if (!trajectory) return <div className={styles.muted}>loading {id}…</div>;
  return (
    <div className={styles.page}>
      <nav className={styles.nav}>
        <strong>{trajectory.id}</strong>
        <span className={styles.muted}>{trajectory.status}</span>
        <Link to={base}>Tokens</Link>
        <span aria-current="page">Drift</span>
      </nav>
      <DriftPanel
        trajectory={trajectory}
        mode={mode}
        onModeChange={setMode}
        tokenHref={(token) => `${base}?token=${token}`}
      />
    </div>
  );
}
