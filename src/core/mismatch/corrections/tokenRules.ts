import { paramsOf } from "./catalog";
import {
  advantageText,
  blankOutcome,
  fmt,
  logRatio,
  mark,
  markUnchecked,
  NO_ADVANTAGE,
  ratio,
} from "./outcome";
import { type CorrectionRule, REPLAY, type ReplayRow, type RowOutcome } from "./types";

/** Runs `decide` on every compared token of every row (a token-level rule). */
function perToken(
  rows: readonly ReplayRow[],
  needsAdvantage: boolean,
  decide: (row: ReplayRow, j: number, o: RowOutcome) => void,
) {
  const outcomes = rows.map((row) => {
    const o = blankOutcome(row.a.length);
    if (needsAdvantage && row.advantage === undefined) return markUnchecked(o);
    for (let j = 0; j < row.a.length; j++) decide(row, j, o);
    return o;
  });
  return { outcomes, facts: {} };
}

/** IcePop (arXiv 2510.18855; miles `icepop_function`): r outside [α, β] is masked. */
export const icepop: CorrectionRule = {
  name: "icepop",
  title: "IcePop",
  source:
    "Ling Team, Every Step Evolves (arXiv 2510.18855); miles loss_hub/corrections.py icepop_function",
  formula: "w = r if α ≤ r ≤ β, else 0 (masked)",
  params: paramsOf("icepop"),
  needsAdvantage: false,
  scope: "token",
  apply: (rows, p) =>
    perToken(rows, false, (row, j, o) => {
      const r = ratio(row, j);
      if (r >= (p.alpha as number) && r <= (p.beta as number)) mark(o, j, REPLAY.kept, r);
      else mark(o, j, REPLAY.masked, 0);
    }),
  explain: (row, o, j, p) => {
    const r = ratio(row, j);
    const range = `[α, β] = [${fmt(p.alpha as number)}, ${fmt(p.beta as number)}]`;
    return o.verdict[j] === REPLAY.masked
      ? `IcePop masked this token: r = ${fmt(r)} is outside ${range}`
      : `IcePop kept this token: r = ${fmt(r)} is inside ${range}`;
  },
};

/** Probability difference p_θ − p_old of token j (DPPO's binary TV). */
function probDiff(row: ReplayRow, j: number): number {
  return Math.exp(row.a[j] as number) - Math.exp(row.b[j] as number);
}

/**
 * DPPO binary TV (arXiv 2602.04879), prime-rl's default loss (`default_loss_fn`): with
 * Δp = p_θ − p_old, a token is masked when A > 0 and Δp > high, or A ≤ 0 and Δp < −low.
 */
export const dppoTv: CorrectionRule = {
  name: "dppo-tv",
  title: "DPPO binary TV",
  source:
    "Qi et al., Rethinking the Trust Region in LLM RL (arXiv 2602.04879); prime-rl trainer/rl/loss.py default_loss_fn",
  formula: "Δp = p_θ − p_old; masked iff (A > 0 and Δp > high) or (A ≤ 0 and Δp < −low)",
  params: paramsOf("dppo-tv"),
  needsAdvantage: true,
  scope: "token",
  apply: (rows, p) =>
    perToken(rows, true, (row, j, o) => {
      const d = probDiff(row, j);
      const isMasked =
        (row.advantage as number) > 0 ? d > (p.high as number) : d < -(p.low as number);
      mark(o, j, isMasked ? REPLAY.masked : REPLAY.kept, isMasked ? 0 : ratio(row, j));
    }),
  explain: (row, o, j, p) => {
    if (o.verdict[j] === REPLAY.unchecked) return `DPPO-TV ${NO_ADVANTAGE}`;
    const d = probDiff(row, j);
    const bound =
      (row.advantage as number) > 0
        ? `Δp > high = ${fmt(p.high as number)}`
        : `Δp < −low = ${fmt(-(p.low as number))}`;
    const did = o.verdict[j] === REPLAY.masked ? "masked" : "kept";
    return `DPPO-TV ${did} this token: Δp = p_θ − p_old = ${fmt(d)}, ${advantageText(row)}; masks when ${bound}`;
  },
};

/** Binary KL of the sampled token (Stable-RL `dppo_binary_kl`), 1e-8 guards as in its code. */
export function binaryKl(logOld: number, logNew: number): number {
  const po = Math.exp(logOld);
  const pn = Math.exp(logNew);
  return po * (logOld - logNew) + (1 - po) * Math.log((1 - po + 1e-8) / (1 - pn + 1e-8));
}

/** DPPO binary KL (arXiv 2602.04879; sail-sg/Stable-RL core_algos.py `dppo_binary_kl`). */
export const dppoKl: CorrectionRule = {
  name: "dppo-kl",
  title: "DPPO binary KL",
  source:
    "Qi et al. (arXiv 2602.04879); sail-sg/Stable-RL verl/trainer/ppo/core_algos.py _compute_token_mask_for_policy_loss",
  formula:
    "kl = p_old·log(p_old/p_θ) + (1−p_old)·log((1−p_old)/(1−p_θ)); masked iff (A > 0, kl > high, p_θ > p_old) or (A ≤ 0, kl > low, p_θ < p_old)",
  params: paramsOf("dppo-kl"),
  needsAdvantage: true,
  scope: "token",
  apply: (rows, p) =>
    perToken(rows, true, (row, j, o) => {
      const kl = binaryKl(row.b[j] as number, row.a[j] as number);
      const up = (row.a[j] as number) > (row.b[j] as number);
      const down = (row.a[j] as number) < (row.b[j] as number);
      const isMasked =
        (row.advantage as number) > 0
          ? kl > (p.high as number) && up
          : kl > (p.low as number) && down;
      mark(o, j, isMasked ? REPLAY.masked : REPLAY.kept, isMasked ? 0 : ratio(row, j));
    }),
  explain: (row, o, j, p) => {
    if (o.verdict[j] === REPLAY.unchecked) return `DPPO-KL ${NO_ADVANTAGE}`;
    const kl = binaryKl(row.b[j] as number, row.a[j] as number);
    const isPositive = (row.advantage as number) > 0;
    const bound = isPositive
      ? `kl > high = ${fmt(p.high as number)} with p_θ > p_old`
      : `kl > low = ${fmt(p.low as number)} with p_θ < p_old`;
    const did = o.verdict[j] === REPLAY.masked ? "masked" : "kept";
    return `DPPO-KL ${did} this token: binary kl = ${fmt(kl)}, ${advantageText(row)}; masks when ${bound}`;
  },
};

/** CISPO (MiniMax-M1, arXiv 2506.13585; verl `compute_policy_loss_cispo`): w = clip(r). */
export const cispo: CorrectionRule = {
  name: "cispo",
  title: "CISPO",
  source: "MiniMax-M1 (arXiv 2506.13585); verl core_algos.py compute_policy_loss_cispo",
  formula: "w = sg(clip(r, 1 − ε_low, 1 + ε_high)); clipped when w ≠ r (no token is dropped)",
  params: paramsOf("cispo"),
  needsAdvantage: false,
  scope: "token",
  apply: (rows, p) =>
    perToken(rows, false, (row, j, o) => {
      const r = ratio(row, j);
      const w = Math.min(Math.max(r, 1 - (p.epsLow as number)), 1 + (p.epsHigh as number));
      mark(o, j, w === r ? REPLAY.kept : REPLAY.clipped, w);
    }),
  explain: (row, o, j, p) => {
    const r = ratio(row, j);
    const range = `[1 − ε_low, 1 + ε_high] = [${fmt(1 - (p.epsLow as number))}, ${fmt(1 + (p.epsHigh as number))}]`;
    return o.verdict[j] === REPLAY.clipped
      ? `CISPO clipped this token's weight: r = ${fmt(r)} → ${fmt(o.weight[j] as number)}, outside ${range}`
      : `CISPO kept this token: r = ${fmt(r)} is inside ${range}`;
  },
};

/** SAPO's gate derivative: 4σ(τ(r − 1))(1 − σ(τ(r − 1))), 1 at r = 1. */
export function sapoGate(r: number, tau: number): number {
  const s = 1 / (1 + Math.exp(-tau * (r - 1)));
  return 4 * s * (1 - s);
}

/**
 * SAPO (arXiv 2511.20347; verl `compute_policy_loss_sapo`, AReaL `sapo_loss_fn`): the loss is
 * −f(r)·A with f(r) = σ(τ(r − 1))·4/τ, so each token's gradient is r·g·A·∇log π_θ with the soft
 * gate g = 4σ(1 − σ); τ = τ_pos when A > 0, else τ_neg.
 */
export const sapo: CorrectionRule = {
  name: "sapo",
  title: "SAPO soft gate",
  source:
    "Qwen, Soft Adaptive Policy Optimization (arXiv 2511.20347); verl compute_policy_loss_sapo",
  formula: "g = 4σ(τ(r−1))(1−σ(τ(r−1))), τ = τ_pos if A > 0 else τ_neg; w = r·g",
  params: paramsOf("sapo"),
  needsAdvantage: true,
  scope: "token",
  apply: (rows, p) =>
    perToken(rows, true, (row, j, o) => {
      const tau = (row.advantage as number) > 0 ? (p.tauPos as number) : (p.tauNeg as number);
      const r = ratio(row, j);
      mark(o, j, REPLAY.weighted, r * sapoGate(r, tau));
    }),
  explain: (row, o, j, p) => {
    if (o.verdict[j] === REPLAY.unchecked) return `SAPO ${NO_ADVANTAGE}`;
    const isPositive = (row.advantage as number) > 0;
    const tau = isPositive ? (p.tauPos as number) : (p.tauNeg as number);
    const r = ratio(row, j);
    return `SAPO weighted this token by its soft gate g = ${fmt(sapoGate(r, tau))} (r = ${fmt(r)}, τ = ${fmt(tau)} as ${advantageText(row)}): w = r·g = ${fmt(o.weight[j] as number)}; log r = ${fmt(logRatio(row, j))}`;
  },
};
