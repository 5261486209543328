import { paramsOf } from "./catalog";
import { blankOutcome, fmt, logRatio, mark, ratio } from "./outcome";
import { type CorrectionRule, REPLAY, type ReplayRow } from "./types";

/**
 * How many of the largest values of `m2` (sorted descending) M2PO drops: the first k whose
 * remaining mean is below τ (AReaL `_get_m2po_loss_mask`); all but one when none is.
 */
export function m2poCut(sortedDesc: Float64Array, tau: number): number {
  const n = sortedDesc.length;
  let suffix = 0;
  const means = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    suffix += sortedDesc[i] as number;
    means[i] = suffix / (n - i);
  }
  for (let i = 0; i < n; i++) if ((means[i] as number) < tau) return i;
  return Math.max(0, n - 1);
}

/**
 * M2PO (arXiv 2510.01161; AReaL `_apply_m2po_masking`): over the whole batch, drop the tokens
 * with the largest (log r)² until the mean (log r)² of the rest is below τ. Ties keep file order
 * (a stable sort; torch.sort's order among equal values is unspecified).
 */
export const m2po: CorrectionRule = {
  name: "m2po",
  title: "M2PO second-moment mask",
  source:
    "Zheng et al., M2PO (arXiv 2510.01161); AReaL areal/trainer/ppo/actor.py _apply_m2po_masking",
  formula: "drop the largest (log r)² of the batch until mean (log r)² of the rest < τ",
  params: paramsOf("m2po"),
  needsAdvantage: false,
  scope: "batch",
  apply: (rows, p) => {
    const outcomes = rows.map((row) => blankOutcome(row.a.length));
    const refs: { r: number; j: number; m2: number }[] = [];
    rows.forEach((row, r) => {
      for (let j = 0; j < row.a.length; j++) {
        const d = logRatio(row, j);
        refs.push({ r, j, m2: d * d });
      }
    });
    refs.sort((x, y) => y.m2 - x.m2 || x.r - y.r || x.j - y.j);
    const cut = m2poCut(
      Float64Array.from(refs, (x) => x.m2),
      p.tau as number,
    );
    let keptSum = 0;
    refs.forEach((x, i) => {
      const o = outcomes[x.r];
      const row = rows[x.r] as ReplayRow;
      if (!o) return;
      if (i < cut) mark(o, x.j, REPLAY.masked, 0);
      else {
        mark(o, x.j, REPLAY.kept, ratio(row, x.j));
        keptSum += x.m2;
      }
    });
    const kept = refs.length - cut;
    return { outcomes, facts: { m2Dropped: cut, m2Kept: kept === 0 ? 0 : keptSum / kept } };
  },
  explain: (row, o, j, p, facts) => {
    const d = logRatio(row, j);
    const batch = `the batch's ${facts.m2Dropped ?? 0} largest (log r)² were dropped, leaving a mean of ${fmt(facts.m2Kept ?? 0)} (τ = ${fmt(p.tau as number)})`;
    return o.verdict[j] === REPLAY.masked
      ? `M2PO masked this token: (log r)² = ${fmt(d * d)} is among the largest; ${batch}`
      : `M2PO kept this token: (log r)² = ${fmt(d * d)}; ${batch}`;
  },
};
