import {
  type Correction,
  type CorrectionKind,
  computeMismatch,
  correction,
  isTokenLevel,
  sequenceWeight,
  VERDICT,
} from "../mismatch";
import { paramsOf } from "./catalog";
import { blankOutcome, fmt, ratio } from "./outcome";
import { type CorrectionRule, REPLAY, type ReplayRow, type RowOutcome } from "./types";

const TITLES: Readonly<Record<CorrectionKind, string>> = {
  "token-trunc": "token TIS (truncate)",
  "token-mask": "token mask",
  "seq-trunc": "sequence TIS (truncate)",
  "seq-mask": "sequence mask",
  "geo-mask": "geometric-mean mask",
};

const FORMULAS: Readonly<Record<CorrectionKind, string>> = {
  "token-trunc": "w = min(r, C); clipped when r > C",
  "token-mask": "masked when r ∉ [lo, hi]",
  "seq-trunc": "ρ = exp(Σ log r); w = min(ρ, C) on every token",
  "seq-mask": "ρ = exp(Σ log r); all masked when ρ ∉ [lo, hi]",
  "geo-mask": "ρ = exp(mean log r); all masked when ρ ∉ [lo, hi]",
};

function correctionOf(kind: CorrectionKind, p: Readonly<Record<string, number>>): Correction {
  return correction(kind, { cap: p.cap as number, lo: p.lo as number, hi: p.hi as number });
}

/** One row through `computeMismatch` (the one implementation of verl's five corrections). */
function legacyRow(row: ReplayRow, c: Correction): RowOutcome {
  const res = computeMismatch({ a: row.a, b: row.b }, c);
  const o = blankOutcome(row.a.length);
  for (let j = 0; j < row.a.length; j++) {
    const v = res.verdict[j];
    (o.verdict as Uint8Array)[j] =
      v === VERDICT.clipped ? REPLAY.clipped : v === VERDICT.masked ? REPLAY.masked : REPLAY.kept;
    (o.weight as Float64Array)[j] = res.weight[j] as number;
  }
  const { sumDelta, compared } = res.stats;
  const stat = isTokenLevel(c) ? Number.NaN : sequenceWeight(c, sumDelta, compared);
  return { ...o, stat, statAt: -1 };
}

/** verl's rollout correction kinds of `mismatch.ts`, as replay rules (cap, lo, hi as there). */
export function legacyRule(kind: CorrectionKind): CorrectionRule {
  return {
    name: kind,
    title: TITLES[kind],
    source: "verl rollout_corr_helper.py (rollout_is / rollout_rs); src/core/mismatch/mismatch.ts",
    formula: FORMULAS[kind],
    params: paramsOf(kind),
    resolve: (p) =>
      kind.endsWith("-mask") && p.lo === undefined ? { ...p, lo: 1 / (p.hi ?? 2) } : p,
    needsAdvantage: false,
    scope: kind.startsWith("token") ? "token" : "sequence",
    apply: (rows, p) => {
      const c = correctionOf(kind, { cap: 2, hi: 2, lo: 0.5, ...p });
      return { outcomes: rows.map((row) => legacyRow(row, c)), facts: {} };
    },
    explain: (row, o, j, p) => {
      const v = o.verdict[j];
      const r = ratio(row, j);
      const on = kind.startsWith("token") ? `r = ${fmt(r)}` : `ρ = ${fmt(o.stat)}`;
      const rule = kind.endsWith("-trunc")
        ? `cap C = ${fmt(p.cap ?? 2)}`
        : `bounds [${fmt(p.lo ?? 1 / (p.hi ?? 2))}, ${fmt(p.hi ?? 2)}]`;
      const did = v === REPLAY.clipped ? "clipped" : v === REPLAY.masked ? "masked" : "kept";
      return `${TITLES[kind]} ${did} this token: ${on}, ${rule} (weight ${fmt(o.weight[j] as number)})`;
    },
  };
}
