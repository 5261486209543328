import { Link } from "react-router";
import { EpisodeHistory } from "./EpisodeHistory";
import styles from "./EpisodesPage.module.css";

/** `/episodes`: every episode the server holds. */
export function EpisodesPage() {
  return (
    <div className={styles.page}>
      <p>
        Live and stored episodes of this server. Start new ones in the{" "}
        <Link to="/playground">playground</Link>.
      </p>
      <EpisodeHistory />
    </div>
  );
}
