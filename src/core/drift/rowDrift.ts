import { DRIFT_MODES, type DriftClass, type DriftMode, type DriftResult } from "./types";

/** What the rollouts table keeps of one trajectory's drift check (compact, cheap to clone). */
export interface RowDrift {
  readonly regions: number;
  /** Loss-mask-1 recorded tokens inside regions. */
  readonly trainableAffected: number;
  /** Token index of the first difference; undefined when clean. */
  readonly firstDivergenceIndex: number | undefined;
  readonly textEqual: boolean;
  /** Regions per class (a region with several classes counts once in each). */
  readonly classCounts: Readonly<Partial<Record<DriftClass, number>>>;
}

/** The compact form of one check's result. */
export function rowDriftOf(result: DriftResult): RowDrift {
  const classCounts: Partial<Record<DriftClass, number>> = {};
  for (const region of result.regions) {
    for (const c of region.classes) classCounts[c] = (classCounts[c] ?? 0) + 1;
  }
  return {
    regions: result.regions.length,
    trainableAffected: result.trainableTokensAffected,
    firstDivergenceIndex: result.firstDivergenceIndex,
    textEqual: result.textEqual,
    classCounts,
  };
}

/** True when the check found any difference. */
export function hasRowDrift(d: RowDrift): boolean {
  return d.firstDivergenceIndex !== undefined;
}

/** A file's drift at a glance, over the rows that were checked. */
export interface FileDriftSummary {
  /** Rows checked (a row the check cannot run on, e.g. template without messages, is not). */
  readonly checked: number;
  /** Rows the check could not run on: `rollout-lens drift --json`'s `unchecked` for this mode. */
  readonly unchecked: number;
  readonly drifted: number;
  /** Drifted rows where at least one trained token is affected. */
  readonly driftedTrained: number;
  readonly regions: number;
  readonly regionsByClass: Readonly<Partial<Record<DriftClass, number>>>;
  readonly trainableTokensAffected: number;
}

/** Sums the per-row drift of a file; `undefined` entries are rows the check could not run on. */
export function summarizeFileDrift(rows: readonly (RowDrift | undefined)[]): FileDriftSummary {
  let checked = 0;
  let unchecked = 0;
  let drifted = 0;
  let driftedTrained = 0;
  let regions = 0;
  let trainableTokensAffected = 0;
  const regionsByClass: Partial<Record<DriftClass, number>> = {};
  for (const row of rows) {
    if (!row) {
      unchecked++;
      continue;
    }
    checked++;
    if (!hasRowDrift(row)) continue;
    drifted++;
    if (row.trainableAffected > 0) driftedTrained++;
    regions += row.regions;
    trainableTokensAffected += row.trainableAffected;
    for (const [c, n] of Object.entries(row.classCounts)) {
      const cls = DRIFT_CLASSES.find((k) => k === c);
      if (cls) regionsByClass[cls] = (regionsByClass[cls] ?? 0) + n;
    }
  }
  return {
    checked,
    unchecked,
    drifted,
    driftedTrained,
    regions,
    regionsByClass,
    trainableTokensAffected,
  };
}

/** Every class, in the order the view lists them. */
export const DRIFT_CLASSES: readonly DriftClass[] = [
  "merge",
  "split",
  "resegment",
  "lossy_text",
  "template_rewrite",
  "special_token",
  "segment_boundary",
  "mask_straddle",
];

/** Parses a mode name from a URL or a select; undefined when it is not one. */
export function parseDriftMode(value: string | null | undefined): DriftMode | undefined {
  return DRIFT_MODES.find((m) => m === value);
}
