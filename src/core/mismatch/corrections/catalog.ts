/**
 * The corrections by name with their thresholds: defaults and where each default comes from.
 * Plain data with no imports, so `rollout-lens mismatch --help` (server/commands/spec.ts) lists
 * them without loading the maths; the rules (registry.ts) read their thresholds from here.
 */

/** A numeric threshold of a correction: its default and where that default comes from. */
export interface ParamSpec {
  readonly key: string;
  readonly default: number;
  readonly doc: string;
}

const VETO: ParamSpec = {
  key: "vetoK2",
  default: 2,
  doc: "token veto: verl seq_max_k2 bound on ½(log r)² (2.0, i.e. |log r| ≤ 2)",
};

const CAP: readonly ParamSpec[] = [{ key: "cap", default: 2, doc: "verl rollout_is_threshold" }];
const BOUNDS: readonly ParamSpec[] = [
  { key: "hi", default: 2, doc: "verl rollout_rs_threshold" },
  { key: "lo", default: 0.5, doc: "verl rollout_rs_threshold_lower (unset: 1/hi)" },
];

/** Every correction's thresholds, in display order (the registry follows this order). */
export const CORRECTION_PARAMS: Readonly<Record<string, readonly ParamSpec[]>> = {
  "token-trunc": CAP,
  "token-mask": BOUNDS,
  "seq-trunc": CAP,
  "seq-mask": BOUNDS,
  "geo-mask": BOUNDS,
  icepop: [
    { key: "alpha", default: 0.5, doc: "lower ratio bound α (paper: 0.5)" },
    { key: "beta", default: 5, doc: "upper ratio bound β (paper: 5)" },
  ],
  "outlier-seq": [
    { key: "veto", default: 1e-4, doc: "verl rollout_token_veto_threshold (presets: 1e-4)" },
  ],
  "trm-k1": [
    { key: "lo", default: 0.999, doc: "verl decoupled_geo_rs: 0.999_1.001" },
    { key: "hi", default: 1.001, doc: "verl decoupled_geo_rs: 0.999_1.001" },
    VETO,
  ],
  "trm-k3": [{ key: "delta", default: 0.01, doc: "verl decoupled_k3_rs rs_threshold" }, VETO],
  opsm: [{ key: "delta", default: 1e-4, doc: "miles --opsm-delta" }],
  m2po: [
    { key: "tau", default: 0.04, doc: "AReaL actor.m2_threshold (examples/math/gsm8k_m2po.yaml)" },
  ],
  "dppo-tv": [
    { key: "low", default: 0.2, doc: "prime-rl dppo_mask_low" },
    { key: "high", default: 0.2, doc: "prime-rl dppo_mask_high" },
  ],
  "dppo-kl": [
    { key: "low", default: 0.2, doc: "Stable-RL reads verl clip_ratio_low (default 0.2)" },
    { key: "high", default: 0.2, doc: "Stable-RL reads verl clip_ratio_high (default 0.2)" },
  ],
  cispo: [
    { key: "epsLow", default: 10, doc: "verl example clip_ratio_low=10 (no lower clip)" },
    { key: "epsHigh", default: 0.2, doc: "verl example clip_ratio_high=0.2" },
  ],
  gspo: [
    { key: "epsLow", default: 3e-4, doc: "GSPO paper §5.1 / verl example clip_ratio_low" },
    { key: "epsHigh", default: 4e-4, doc: "GSPO paper §5.1 / verl example clip_ratio_high" },
  ],
  sapo: [
    { key: "tauPos", default: 1, doc: "verl tau_pos / AReaL sapo_tau_pos" },
    { key: "tauNeg", default: 1.05, doc: "verl tau_neg / AReaL sapo_tau_neg" },
  ],
};

/** The names of the corrections whose thresholds are the `--cap`/`--bounds` flags. */
export const LEGACY_CORRECTIONS = [
  "token-trunc",
  "token-mask",
  "seq-trunc",
  "seq-mask",
  "geo-mask",
];

/** The thresholds of correction `name` (an empty list for an unknown one). */
export function paramsOf(name: string): readonly ParamSpec[] {
  return CORRECTION_PARAMS[name] ?? [];
}

/** The CLI option naming threshold `key` of correction `name`: `--icepop-alpha`, `--trm-k1-veto-k2`. */
export function optionName(name: string, key: string): string {
  return `--${name}-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
