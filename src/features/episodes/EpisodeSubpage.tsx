import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import type { Trajectory } from "../../core/trajectory/types";
import styles from "./EpisodeSubpage.module.css";

/** The pages of one episode besides its token view, in the order the nav lists them. */
const SUBPAGES = [
  { name: "Drift", path: "drift" },
  { name: "Bisect", path: "bisect" },
] as const;

export type EpisodeSubpageName = (typeof SUBPAGES)[number]["name"];

interface EpisodeSubpageProps {
  /** The page shown: marked as current in the nav. */
  readonly current: EpisodeSubpageName;
  /** The page's body, once the episode (`/episodes/:id`) is loaded; `base` is its token view. */
  readonly children: (trajectory: Trajectory, base: string) => ReactNode;
}

/**
 * `/episodes/:id/<page>`: the episode loaded, its error or loading line, and the nav between its
 * token view and its other pages (drift, bisect), around the page's own body.
 */
export function EpisodeSubpage({ current, children }: EpisodeSubpageProps) {
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
        {SUBPAGES.map(({ name, path }) =>
          name === current ? (
            <span key={name} aria-current="page">
              {name}
            </span>
          ) : (
            <Link key={name} to={`${base}/${path}`}>
              {name}
            </Link>
          ),
        )}
      </nav>
      {children(trajectory, base)}
    </div>
  );
}
