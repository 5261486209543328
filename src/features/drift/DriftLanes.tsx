import type { DriftHunk } from "../../core/drift/driftHunks";
import type { DriftResult, RegionToken } from "../../core/drift/types";
import { isSpecialPiece, visibleText } from "../../core/layout/displayPiece";
import type { SegmentKind } from "../../core/trajectory/types";
import styles from "./DriftLanes.module.css";

/** Per recorded token: its piece, segment kind and loss mask (token index space). */
export interface RecordedTokens {
  readonly pieces: readonly string[];
  readonly kinds: readonly SegmentKind[];
  readonly lossMask: readonly (0 | 1)[];
}

export interface DriftLanesProps {
  readonly hunk: DriftHunk;
  readonly result: DriftResult;
  readonly recorded: RecordedTokens;
  /** Region (index into result.regions) to emphasise, e.g. the one jumped to. */
  readonly current: number;
}

function Cell({
  id,
  piece,
  index,
  side,
  className,
  logprob,
}: {
  readonly id: number;
  readonly piece: string;
  readonly index: number;
  readonly side: "recorded" | "retokenized";
  readonly className: string;
  readonly logprob?: number | null | undefined;
}) {
  const lp = logprob === null || logprob === undefined ? "" : ` · logprob ${logprob.toFixed(3)}`;
  const special = isSpecialPiece(piece) ? ` ${styles.special}` : "";
  return (
    <span
      className={`${styles.tok} ${className}${special}`}
      title={`${side} token ${index} · id ${id} · ${JSON.stringify(piece)}${lp}`}
      data-id={id}
    >
      {visibleText(piece, true) || "\u2205"}
    </span>
  );
}

const KIND_CLASS: Readonly<Record<SegmentKind, string | undefined>> = {
  prompt: styles.prompt,
  model: styles.model,
  tool: styles.tool,
};

function regionCells(
  tokens: readonly RegionToken[],
  first: number,
  side: "recorded" | "retokenized",
  classOf: (k: number) => string,
) {
  if (tokens.length === 0) return <span className={styles.gap}>nothing</span>;
  const indices = tokens.map((_, k) => first + k);
  return tokens.map((t, k) => {
    const index = indices[k] ?? first;
    return (
      <Cell
        key={index}
        id={t.id}
        piece={t.piece}
        index={index}
        side={side}
        className={classOf(k)}
        logprob={t.logprob}
      />
    );
  });
}

/**
 * One strip of the two-lane diff: recorded (TITO) tokens above, retokenized below. Shared context
 * tokens pair up one above the other; a region holds each side's tokens in one block, so a merge
 * shows two tokens above one.
 */
export function DriftLanes({ hunk, result, recorded, current }: DriftLanesProps) {
  const kindClass = (t: number) => {
    const kind = recorded.kinds[t];
    return `${kind ? (KIND_CLASS[kind] ?? "") : ""} ${recorded.lossMask[t] === 1 ? styles.trained : ""}`;
  };
  return (
    <div className={styles.lanes}>
      <div className={styles.labels}>
        <span>recorded (TITO)</span>
        <span>retokenized</span>
      </div>
      <div className={styles.strip}>
        {hunk.columns.map((col) => {
          if (col.kind === "same") {
            const piece = recorded.pieces[col.t] ?? `#${col.id}`;
            return (
              <div key={`s${col.t}`} className={styles.column}>
                <Cell
                  id={col.id}
                  piece={piece}
                  index={col.t}
                  side="recorded"
                  className={`${kindClass(col.t)} ${styles.context}`}
                />
                <Cell
                  id={col.id}
                  piece={piece}
                  index={col.r}
                  side="retokenized"
                  className={`${kindClass(col.t)} ${styles.context}`}
                />
              </div>
            );
          }
          const region = result.regions[col.region];
          if (!region) return null;
          const isTrained = region.trainableAffected > 0;
          return (
            <div
              key={`r${col.region}`}
              className={`${styles.region} ${isTrained ? styles.regionTrained : styles.regionUntrained} ${col.region === current ? styles.current : ""}`}
              data-testid="drift-region-lanes"
              data-region={col.region}
            >
              <div className={styles.side} data-lane="recorded">
                {regionCells(region.tito, region.t[0], "recorded", (k) =>
                  kindClass(region.t[0] + k),
                )}
              </div>
              <div className={styles.side} data-lane="retokenized">
                {regionCells(region.retok, region.r[0], "retokenized", () => styles.rebuilt ?? "")}
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}
