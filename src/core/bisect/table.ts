import type { BisectBundle, KnobResult } from "./bundle";
import type { RowName } from "./knobs";
import { type LaneDelta, laneDelta } from "./laneDelta";

/** One row of the bisect table: a knob's δ statistics against the baseline, or why it is unchecked. */
export type BisectRow =
  | {
      readonly knob: RowName;
      readonly status: "ran";
      readonly change: string;
      readonly stats: LaneDelta;
      readonly notes: readonly string[];
      /**
       * The row's lane is the baseline itself (the reference, when the row records no sampled
       * logprob): its δ is 0 by construction, not a check that passed.
       */
      readonly isBaseline?: true;
    }
  | { readonly knob: RowName; readonly status: "unchecked"; readonly reason: string };

/** The table of a bundle: every knob's lane against the baseline over the trained tokens. */
export function bisectTable(bundle: BisectBundle): BisectRow[] {
  return bundle.knobs.map(
    (k: KnobResult): BisectRow =>
      k.status === "ran"
        ? {
            knob: k.knob,
            status: "ran",
            change: k.change,
            stats: laneDelta(k.lane, bundle.baseline.lane, bundle.mask),
            notes: k.notes,
            ...(k.knob === "reference" && bundle.baseline.name === "reference"
              ? { isBaseline: true as const }
              : {}),
          }
        : { knob: k.knob, status: "unchecked", reason: k.reason },
  );
}

const STAT_KEYS = [
  "compared",
  "missing",
  "meanAbsDelta",
  "maxAbsDelta",
  "maxAt",
  "k3",
  "outside",
] as const satisfies readonly (keyof LaneDelta)[];

/**
 * Where two tables disagree (a rerun against the recorded one): rows by knob, each statistic
 * within `tolerance` (absolute, nats). Empty when they agree.
 */
export function tableDifferences(
  recorded: readonly BisectRow[],
  rerun: readonly BisectRow[],
  tolerance = 1e-9,
): string[] {
  const out: string[] = [];
  for (const r of recorded) {
    const again = rerun.find((x) => x.knob === r.knob);
    if (again === undefined) {
      out.push(`${r.knob}: not in the rerun`);
    } else if (r.status !== again.status) {
      out.push(`${r.knob}: ${r.status} in the bundle, ${again.status} now`);
    } else if (r.status === "ran" && again.status === "ran") {
      for (const key of STAT_KEYS) {
        const a = r.stats[key];
        const b = again.stats[key];
        if (!(Math.abs(a - b) <= tolerance))
          out.push(`${r.knob}: ${key} ${a} in the bundle, ${b} now`);
      }
    }
  }
  for (const x of rerun) {
    if (!recorded.some((r) => r.knob === x.knob)) out.push(`${x.knob}: not in the bundle`);
  }
  return out;
}
