import { safeExp } from "../mismatch";
import { paramsOf } from "./catalog";
import {
  advantageText,
  blankOutcome,
  fmt,
  logRatio,
  mark,
  markSequence,
  markUnchecked,
  NO_ADVANTAGE,
  ratio,
  sumLogRatio,
} from "./outcome";
import { type CorrectionRule, REPLAY, type ReplayRow, type RowOutcome } from "./types";

/** The compared token with the largest |log r| (−1 when none). */
function worstToken(row: ReplayRow): number {
  let at = -1;
  let max = -1;
  for (let j = 0; j < row.a.length; j++) {
    const d = Math.abs(logRatio(row, j));
    if (d > max) {
      max = d;
      at = j;
    }
  }
  return at;
}

/** The compared token with the smallest log r (−1 when none). */
function lowestToken(row: ReplayRow): number {
  let at = -1;
  let min = Number.POSITIVE_INFINITY;
  for (let j = 0; j < row.a.length; j++) {
    const d = logRatio(row, j);
    if (d < min) {
      min = d;
      at = j;
    }
  }
  return at;
}

function whole(row: ReplayRow, at: number): string {
  return at < 0 ? "" : ` (token #${row.at[at]})`;
}

/**
 * Outlier-token sequence mask (verl ≤ 0.6 `rollout_token_veto_threshold`, default 1e-4 in its
 * geometric presets): a sequence with any token whose r is below the veto is masked whole.
 */
export const outlierSeq: CorrectionRule = {
  name: "outlier-seq",
  title: "outlier-token sequence mask",
  source:
    "verl rollout_corr_helper.py before PR #4544 (rollout_token_veto_threshold, catastrophic-token veto)",
  formula: "masked whole iff min_t r_t < veto",
  params: paramsOf("outlier-seq"),
  needsAdvantage: false,
  scope: "sequence",
  apply: (rows, p) => ({
    outcomes: rows.map((row) => {
      const at = lowestToken(row);
      const min = at < 0 ? Number.NaN : ratio(row, at);
      return markSequence(blankOutcome(row.a.length, min, at), row, min < (p.veto as number));
    }),
    facts: {},
  }),
  explain: (row, o, _j, p) =>
    o.verdict[_j] === REPLAY.masked
      ? `outlier-token mask dropped the whole sequence: its lowest r = ${fmt(o.stat)}${whole(row, o.statAt)} is below the veto ${fmt(p.veto as number)}`
      : `outlier-token mask kept the sequence: its lowest r = ${fmt(o.stat)}${whole(row, o.statAt)} is not below the veto ${fmt(p.veto as number)}`,
};

/**
 * Trust Region Masking's token veto (verl's `seq_max_k2`, docs/mismatch.md): the largest ½(log r)² of the
 * sequence, and the token that has it.
 */
function vetoOf(row: ReplayRow): { k2: number; at: number } {
  const at = worstToken(row);
  const d = at < 0 ? 0 : logRatio(row, at);
  return { k2: 0.5 * d * d, at };
}

/** A TRM rule: an average criterion (`average`) and the token veto, both must pass. */
function trmRule(
  name: string,
  average: {
    label: string;
    stat: (row: ReplayRow) => number;
    fails: (s: number, p: Readonly<Record<string, number>>) => boolean;
    bound: (p: Readonly<Record<string, number>>) => string;
  },
  extra: Pick<CorrectionRule, "params" | "formula" | "title">,
): CorrectionRule {
  const decide = (row: ReplayRow, p: Readonly<Record<string, number>>) => {
    const s = average.stat(row);
    const veto = vetoOf(row);
    return { s, veto, isAverage: average.fails(s, p), isVeto: veto.k2 > (p.vetoK2 as number) };
  };
  return {
    name,
    ...extra,
    source:
      "Li et al., Trust Region Masking (arXiv 2512.23075); verl PR #4544 rollout_corr_helper.py compute_rollout_rejection_mask",
    needsAdvantage: false,
    scope: "sequence",
    apply: (rows, p) => ({
      outcomes: rows.map((row) => {
        const { s, veto, isAverage, isVeto } = decide(row, p);
        return markSequence(blankOutcome(row.a.length, s, veto.at), row, isAverage || isVeto);
      }),
      facts: {},
    }),
    explain: (row, _o, _j, p) => {
      if (row.a.length === 0) return "no compared token";
      const { s, veto, isAverage, isVeto } = decide(row, p);
      const avg = `${average.label} = ${fmt(s)} (bound ${average.bound(p)})`;
      const max = `max ½(log r)² = ${fmt(veto.k2)}${whole(row, veto.at)} (veto above ${fmt(p.vetoK2 as number)})`;
      if (!isAverage && !isVeto) return `TRM kept the sequence: ${avg}; ${max}`;
      const who = [
        isAverage ? `the average fails: ${avg}` : "",
        isVeto ? `the token veto fires: ${max}` : "",
      ];
      return `TRM masked the whole sequence: ${who.filter(Boolean).join("; ")}`;
    },
  };
}

/** TRM with K1: verl `seq_mean_k1` (−mean log r within [log lo, log hi]) plus the token veto. */
export const trmK1 = trmRule(
  "trm-k1",
  {
    label: "−mean log r",
    stat: (row) => (row.a.length === 0 ? 0 : -sumLogRatio(row) / row.a.length),
    fails: (s, p) => !(s >= Math.log(p.lo as number) && s <= Math.log(p.hi as number)),
    bound: (p) => `[log ${fmt(p.lo as number)}, log ${fmt(p.hi as number)}]`,
  },
  {
    title: "TRM K1 + token veto",
    formula: "masked whole iff −mean log r ∉ [log lo, log hi] or max ½(log r)² > vetoK2",
    params: paramsOf("trm-k1"),
  },
);

/** TRM with K3: verl `seq_mean_k3` (mean of r − 1 − log r at most δ) plus the token veto. */
export const trmK3 = trmRule(
  "trm-k3",
  {
    label: "mean k3",
    stat: (row) => {
      let s = 0;
      for (let j = 0; j < row.a.length; j++)
        s += ratio(row, j) - 1 - Math.max(-20, Math.min(20, logRatio(row, j)));
      return row.a.length === 0 ? 0 : s / row.a.length;
    },
    fails: (s, p) => s > (p.delta as number),
    bound: (p) => `≤ ${fmt(p.delta as number)}`,
  },
  {
    title: "TRM K3 + token veto",
    formula: "masked whole iff mean(r − 1 − log r) > δ or max ½(log r)² > vetoK2",
    params: paramsOf("trm-k3"),
  },
);

/**
 * OPSM (DeepSeek-V3.2; miles `compute_opsm_mask`): mask a sequence iff A < 0 and
 * mean(log π_old − log π_θ) > δ.
 */
export const opsm: CorrectionRule = {
  name: "opsm",
  title: "OPSM",
  source:
    "DeepSeek-V3.2 (arXiv 2512.02556) off-policy sequence masking; miles loss_hub/math_utils.py compute_opsm_mask",
  formula: "masked whole iff A < 0 and mean(log π_old − log π_θ) > δ",
  params: paramsOf("opsm"),
  needsAdvantage: true,
  scope: "sequence",
  apply: (rows, p) => ({
    outcomes: rows.map((row) => {
      const kl = row.a.length === 0 ? 0 : -sumLogRatio(row) / row.a.length;
      const o = blankOutcome(row.a.length, kl, -1);
      if (row.advantage === undefined) return markUnchecked(o);
      return markSequence(o, row, row.advantage < 0 && kl > (p.delta as number));
    }),
    facts: {},
  }),
  explain: (row, o, j, p) => {
    if (o.verdict[j] === REPLAY.unchecked) return `OPSM ${NO_ADVANTAGE}`;
    const what = `mean(log π_old − log π_θ) = ${fmt(o.stat)} (δ = ${fmt(p.delta as number)}), ${advantageText(row)}`;
    return o.verdict[j] === REPLAY.masked
      ? `OPSM masked the whole sequence: A < 0 and ${what}`
      : `OPSM kept the sequence: ${what}; it masks only when A < 0 and the mean exceeds δ`;
  },
};

/** GSPO's sequence ratio s = exp(mean log r), its log clamped at 10 as in verl. */
function gspoRatio(row: ReplayRow): number {
  return row.a.length === 0 ? 1 : safeExp(Math.min(10, sumLogRatio(row) / row.a.length));
}

/**
 * GSPO (arXiv 2507.18071; verl `compute_policy_loss_gspo`): every token is weighted by the
 * sequence ratio s; PPO's clip on s leaves no gradient (weight 0) when A > 0 and s > 1 + ε_high,
 * or A < 0 and s < 1 − ε_low.
 */
export const gspo: CorrectionRule = {
  name: "gspo",
  title: "GSPO sequence ratio",
  source:
    "Qwen, Group Sequence Policy Optimization (arXiv 2507.18071); verl compute_policy_loss_gspo",
  formula:
    "s = exp(mean log r); clipped (no gradient) iff (A > 0, s > 1 + ε_high) or (A < 0, s < 1 − ε_low); else w = s",
  params: paramsOf("gspo"),
  needsAdvantage: true,
  scope: "sequence",
  apply: (rows, p) => ({
    outcomes: rows.map((row) => gspoRow(row, p)),
    facts: {},
  }),
  explain: (row, o, j, p) => {
    if (o.verdict[j] === REPLAY.unchecked) return `GSPO ${NO_ADVANTAGE}`;
    const range = `[1 − ε_low, 1 + ε_high] = [${fmt(1 - (p.epsLow as number))}, ${fmt(1 + (p.epsHigh as number))}]`;
    return o.verdict[j] === REPLAY.clipped
      ? `GSPO clipped the whole sequence: s = exp(mean log r) = ${fmt(o.stat)} is outside ${range} on the side ${advantageText(row)} pushes; the clipped term carries no gradient`
      : `GSPO weighted this token by the sequence ratio s = ${fmt(o.stat)} (${advantageText(row)}; clip range ${range})`;
  },
};

function gspoRow(row: ReplayRow, p: Readonly<Record<string, number>>): RowOutcome {
  const s = gspoRatio(row);
  const o = blankOutcome(row.a.length, s, -1);
  if (row.advantage === undefined) return markUnchecked(o);
  const a = row.advantage;
  const isClipped =
    (a > 0 && s > 1 + (p.epsHigh as number)) || (a < 0 && s < 1 - (p.epsLow as number));
  for (let j = 0; j < row.a.length; j++) {
    if (isClipped) mark(o, j, REPLAY.clipped, 0);
    else mark(o, j, REPLAY.kept, s);
  }
  return o;
}
