import { useMemo } from "react";
import { useParams } from "react-router";
import { buildDemo } from "../core/demo/demoTrajectories";
import { revealInvisible } from "../core/layout/displayPiece";
import { TrajectoryView } from "../features/trajectory-view/TrajectoryView";
import { useTokenParam } from "../hooks/useTokenParam";
import styles from "./DemoPage.module.css";
import { NotFoundPage } from "./NotFoundPage";

/** `/demo/:name?token=N`: a generated trajectory, optionally opened at a token. */
export function DemoPage() {
  const { name = "" } = useParams();
  const demo = useMemo(() => {
    const built = buildDemo(name);
    // `npm run bench` measures from here (data in memory) to the first painted tokens.
    performance.mark("rollout-lens:data-ready");
    return built;
  }, [name]);
  const [initialToken, handleSelectToken] = useTokenParam();
  if (!demo) return <NotFoundPage what={`demo "${name}"`} />;
  const { trajectory } = demo;
  return (
    <>
      <div className={styles.meta}>
        <strong>{trajectory.id}</strong>
        <span>{revealInvisible(trajectory.model ?? "")}</span>
        <span className={styles[trajectory.status]}>{trajectory.status}</span>
        {trajectory.reward !== undefined && <span>reward {trajectory.reward}</span>}
      </div>
      <div className={styles.view}>
        <TrajectoryView
          // A new trajectory starts a new view (scroll position, selection).
          key={name}
          trajectory={trajectory}
          pieces={demo.pieces}
          initialToken={initialToken}
          onSelectToken={handleSelectToken}
        />
      </div>
    </>
  );
}
