import { paramsOf } from "./catalog";
import { blankOutcome, fmt, logRatio, mark, ratio } from "./outcome";
import { type CorrectionRule, REPLAY } from "./types";

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
    const total = rows.reduce((sum, row) => sum + row.a.length, 0);
    const m2 = new Float64Array(total);
    let at = 0;
    for (const row of rows) {
      for (let j = 0; j < row.a.length; j++) {
        const d = logRatio(row, j);
        m2[at++] = d * d;
      }
    }
    // Largest first (a native numeric sort, reversed), then the cut-off value v: every (log r)²
    // above v is dropped, and of those equal to v the first ones in file order.
    const desc = Float64Array.from(m2).sort().reverse();
    const cut = m2poCut(desc, p.tau as number);
    const v = cut === 0 ? Number.POSITIVE_INFINITY : (desc[cut - 1] as number);
    let equalLeft = cut;
    for (let i = 0; i < cut; i++) if ((desc[i] as number) > v) equalLeft -= 1;
    let keptSum = 0;
    at = 0;
    rows.forEach((row, r) => {
      const o = outcomes[r] as (typeof outcomes)[number];
      for (let j = 0; j < row.a.length; j++) {
        const x = m2[at++] as number;
        const isDropped = x > v || (x === v && equalLeft-- > 0);
        if (isDropped) mark(o, j, REPLAY.masked, 0);
        else {
          mark(o, j, REPLAY.kept, ratio(row, j));
          keptSum += x;
        }
      }
    });
    const kept = total - cut;
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
