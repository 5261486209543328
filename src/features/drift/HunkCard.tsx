import { forwardRef } from "react";
import { Link } from "react-router";
import { describeRegion } from "../../core/drift/describeRegion";
import type { DriftHunk } from "../../core/drift/driftHunks";
import type { DriftResult } from "../../core/drift/types";
import { DriftLanes, type RecordedTokens } from "./DriftLanes";
import styles from "./HunkCard.module.css";

export interface HunkCardProps {
  readonly hunk: DriftHunk;
  readonly result: DriftResult;
  readonly recorded: RecordedTokens;
  readonly current: number;
  readonly tokenHref: (token: number) => string;
  readonly onSelectRegion: (region: number) => void;
}

/** One strip of nearby regions: each region in words (impact first), then the two lanes. */
export const HunkCard = forwardRef<HTMLElement, HunkCardProps>(function HunkCard(
  { hunk, result, recorded, current, tokenHref, onSelectRegion },
  ref,
) {
  const isCurrent = hunk.regions.includes(current);
  return (
    <section ref={ref} className={`${styles.card} ${isCurrent ? styles.currentCard : ""}`}>
      {hunk.regions.map((k) => {
        const region = result.regions[k];
        if (!region) return null;
        const words = describeRegion(region, result.mode);
        return (
          // biome-ignore lint/a11y: [ and ] move between regions from the keyboard; a click only marks one
          <div
            key={k}
            className={styles.region}
            data-testid="drift-region"
            data-region={k}
            onClick={() => onSelectRegion(k)}
          >
            <div className={styles.head}>
              <span className={styles.number}>
                region {k + 1} of {result.regions.length}
              </span>
              <span className={styles.where}>
                tokens {region.t[0]}–{region.t[1]} → {region.r[0]}–{region.r[1]} ·{" "}
                {region.role ?? "?"} segment {region.segment}
              </span>
              <span className={styles.classes}>
                {region.classes.map((c) => (
                  <span key={c} className={styles.chip} data-testid="drift-class">
                    {c}
                  </span>
                ))}
              </span>
              <Link className={styles.open} to={tokenHref(region.t[0])}>
                open token {region.t[0]} ↗
              </Link>
            </div>
            <div className={words.isTrained ? styles.impactTrained : styles.impact}>
              {words.impact}
            </div>
            <div className={styles.sides}>{words.sides}</div>
            <ul className={styles.why}>
              {words.classes.map((phrase) => (
                <li key={phrase}>{phrase}</li>
              ))}
            </ul>
          </div>
        );
      })}
      <DriftLanes hunk={hunk} result={result} recorded={recorded} current={current} />
    </section>
  );
});
