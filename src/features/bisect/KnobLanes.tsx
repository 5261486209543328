import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef } from "react";
import type { BisectBundle } from "../../core/bisect/bundle";
import type { RowName } from "../../core/bisect/knobs";
import { RATIO_HIGH, RATIO_LOW } from "../../core/bisect/laneDelta";
import { safeExp } from "../../core/mismatch/mismatch";
import { mismatchColor } from "../../core/mismatch/mismatchScale";
import styles from "./BisectLab.module.css";

const ROW_HEIGHT = 24;
const EXTENT = 0.5;

interface KnobLanesProps {
  readonly bundle: BisectBundle;
  readonly knob: RowName;
}

const shown = (x: number | null | undefined) => (typeof x === "number" ? x.toFixed(4) : "—");

/** The per-token lanes of one knob over the trained tokens: baseline, reference, knob, δ shaded, r. */
export function KnobLanes({ bundle, knob }: KnobLanesProps) {
  const result = bundle.knobs.find((k) => k.knob === knob);
  const lane = result?.status === "ran" ? result.lane : undefined;
  const first = bundle.knobs[0];
  const reference = first?.status === "ran" ? first.lane : undefined;
  const trained = useMemo(() => bundle.mask.flatMap((m, k) => (m === 1 ? [k] : [])), [bundle]);
  const parent = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: trained.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  if (lane === undefined) return null;
  return (
    <section className={styles.lanes} data-testid="knob-lanes" aria-label={`${knob} lanes`}>
      <h3>
        {knob}: per-token lanes ({trained.length} trained tokens; δ = {knob} −{" "}
        {bundle.baseline.name})
      </h3>
      <div className={`${styles.laneRow} ${styles.laneHead}`}>
        <span>token</span>
        <span>id</span>
        <span>{bundle.baseline.name}</span>
        <span>reference</span>
        <span>{knob}</span>
        <span>δ</span>
        <span>r</span>
      </div>
      <div ref={parent} className={styles.laneScroll}>
        <div style={{ height: rows.getTotalSize(), position: "relative" }}>
          {rows.getVirtualItems().map((v) => {
            const k = trained[v.index] ?? 0;
            const a = lane[k];
            const b = bundle.baseline.lane[k];
            const delta = typeof a === "number" && typeof b === "number" ? a - b : undefined;
            const r = delta === undefined ? undefined : safeExp(delta);
            const isOutside = r !== undefined && (r < RATIO_LOW || r > RATIO_HIGH);
            return (
              <div
                key={v.key}
                className={styles.laneRow}
                data-token={k}
                style={{ position: "absolute", top: v.start, height: ROW_HEIGHT, width: "100%" }}
              >
                <span>{k}</span>
                <span>{bundle.ids[k]}</span>
                <span>{shown(b)}</span>
                <span>{shown(reference?.[k])}</span>
                <span>{shown(a)}</span>
                <span style={delta === undefined ? undefined : mismatchColor(delta, EXTENT)}>
                  {delta === undefined ? "missing" : delta.toFixed(4)}
                </span>
                <span className={isOutside ? styles.outside : undefined}>
                  {r === undefined ? "—" : r.toFixed(3)}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
