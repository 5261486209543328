import { legacyRule } from "./legacy";
import { m2po } from "./m2po";
import { gspo, opsm, outlierSeq, trmK1, trmK3 } from "./sequenceRules";
import { cispo, dppoKl, dppoTv, icepop, sapo } from "./tokenRules";
import type { CorrectionRule } from "./types";

/** Every correction `mismatch --correction` and the what-if table replay, in display order. */
export const CORRECTION_RULES: readonly CorrectionRule[] = [
  legacyRule("token-trunc"),
  legacyRule("token-mask"),
  legacyRule("seq-trunc"),
  legacyRule("seq-mask"),
  legacyRule("geo-mask"),
  icepop,
  outlierSeq,
  trmK1,
  trmK3,
  opsm,
  m2po,
  dppoTv,
  dppoKl,
  cispo,
  gspo,
  sapo,
];

/** Short names the CLI has always accepted. */
const ALIASES: Readonly<Record<string, string>> = { seq: "seq-mask", geo: "geo-mask" };

export function ruleNamed(name: string): CorrectionRule | undefined {
  const n = ALIASES[name] ?? name;
  return CORRECTION_RULES.find((r) => r.name === n);
}

/** A correction with its thresholds resolved. */
export interface CorrectionChoice {
  readonly name: string;
  readonly params: Readonly<Record<string, number>>;
}

/**
 * `name` with thresholds `given` (only those the user set), defaults filled; a string saying
 * what is wrong for an unknown name or threshold, or a value that is not a finite number.
 */
export function choose(
  name: string,
  given: Readonly<Record<string, number>> = {},
): CorrectionChoice | string {
  const rule = ruleNamed(name);
  if (!rule) {
    const names = CORRECTION_RULES.map((r) => r.name).join(", ");
    return `unknown correction "${name}" (one of ${names}; seq and geo name seq-mask and geo-mask)`;
  }
  for (const [key, v] of Object.entries(given)) {
    if (!rule.params.some((p) => p.key === key)) {
      const keys = rule.params.map((p) => p.key).join(", ");
      return `${rule.name} has no threshold "${key}" (its thresholds: ${keys})`;
    }
    if (!Number.isFinite(v)) return `${rule.name} ${key}: expected a number, got ${v}`;
  }
  const resolved = rule.resolve ? rule.resolve(given) : given;
  const params: Record<string, number> = {};
  for (const p of rule.params) params[p.key] = resolved[p.key] ?? p.default;
  return { name: rule.name, params };
}

/** Every correction with its default thresholds (the token details and the what-if table). */
export function defaultChoices(): CorrectionChoice[] {
  return CORRECTION_RULES.map((r) => choose(r.name) as CorrectionChoice);
}
