import { useEffect } from "react";
import { BrowserRouter, Link, NavLink, Route, Routes } from "react-router";
import { EpisodeBisectPage } from "../features/bisect/EpisodeBisectPage";
import { BranchGroupPage } from "../features/branches/BranchGroupPage";
import { EpisodeComparePage } from "../features/branches/EpisodeComparePage";
import { EpisodeDriftPage } from "../features/drift/EpisodeDriftPage";
import { EpisodeHistory } from "../features/episodes/EpisodeHistory";
import { EpisodePage } from "../features/episodes/EpisodePage";
import { EpisodesPage } from "../features/episodes/EpisodesPage";
import { FileForestPage } from "../features/forest/FileForestPage";
import { PlaygroundPage } from "../features/playground/PlaygroundPage";
import { ComparePage } from "../features/rollouts/ComparePage";
import { FileRoute } from "../features/rollouts/FileRoute";
import { FilesPage } from "../features/rollouts/FilesPage";
import { FileTrajectoryPage } from "../features/rollouts/FileTrajectoryPage";
import { RolloutsPage } from "../features/rollouts/RolloutsPage";
import { prefsActions, useTheme } from "../stores/prefsStore";
import styles from "./App.module.css";
import { DemoPage } from "./DemoPage";
import { PageErrorBoundary } from "./ErrorBoundary";
import { HomePage } from "./HomePage";
import { NotFoundPage } from "./NotFoundPage";

/** The shell: header with the theme toggle, and the routes. */
export function App() {
  const theme = useTheme();
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <BrowserRouter>
      <div className={styles.shell}>
        <header className={styles.header}>
          <h1 className={styles.title}>
            <Link to="/">Rollout Lens</Link>
          </h1>
          <span className={styles.tagline}>exact tokens of agentic-RL rollouts</span>
          <nav className={styles.nav}>
            <NavLink to="/playground">Playground</NavLink>
            <NavLink to="/episodes">Episodes</NavLink>
            <NavLink to="/files">Rollout files</NavLink>
          </nav>
          <button
            type="button"
            className={styles.themeToggle}
            onClick={prefsActions.themeToggled}
            aria-label="toggle theme"
          >
            {theme === "dark" ? "☀ light" : "☾ dark"}
          </button>
        </header>
        <main className={styles.main}>
          <PageErrorBoundary>
            <Routes>
              <Route index element={<HomePage />} />
              <Route path="demo/:name" element={<DemoPage />} />
              <Route
                path="playground"
                element={<PlaygroundPage history={<EpisodeHistory limit={30} />} />}
              />
              <Route path="episodes" element={<EpisodesPage />} />
              <Route path="episodes/:id" element={<EpisodePage />} />
              <Route path="episodes/:id/branches" element={<BranchGroupPage />} />
              <Route path="episodes/compare/:a/:b" element={<EpisodeComparePage />} />
              <Route path="episodes/:id/drift" element={<EpisodeDriftPage />} />
              <Route path="episodes/:id/bisect" element={<EpisodeBisectPage />} />
              <Route path="files" element={<FilesPage />} />
              <Route path="files/:fileId" element={<FileRoute />}>
                <Route index element={<RolloutsPage />} />
                <Route path=":row" element={<FileTrajectoryPage />} />
                <Route path=":row/drift" element={<FileTrajectoryPage view="drift" />} />
                <Route path=":row/bisect" element={<FileTrajectoryPage view="bisect" />} />
                <Route path="compare/:a/:b" element={<ComparePage />} />
                <Route path="groups/:group" element={<FileForestPage />} />
              </Route>
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </PageErrorBoundary>
        </main>
      </div>
    </BrowserRouter>
  );
}
