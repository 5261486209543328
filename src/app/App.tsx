import styles from "./App.module.css";

export function App() {
  return (
    <div className={styles.shell}>
      <header className={styles.header}>
        <h1 className={styles.title}>Rollout Lens</h1>
        <span className={styles.tagline}>exact tokens of agentic-RL rollouts</span>
      </header>
      <main className={styles.main}>
        <p>Playground, trajectory view and rollout files arrive here.</p>
      </main>
    </div>
  );
}
