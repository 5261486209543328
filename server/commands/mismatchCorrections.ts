import {
  CORRECTION_PARAMS,
  LEGACY_CORRECTIONS,
  optionName,
} from "../../src/core/mismatch/corrections/catalog";
import {
  type CorrectionChoice,
  choose,
  ruleNamed,
} from "../../src/core/mismatch/corrections/registry";
import { type Correction, type CorrectionKind, correction } from "../../src/core/mismatch/mismatch";
import type { MismatchFlags } from "./commandFlags";

/** What `mismatch --correction A,B --cap C --bounds LO,HI --icepop-alpha X …` asks for. */
export interface CorrectionsAsked {
  /** verl's correction the per-trajectory statistics and charts use (the first of the five named). */
  readonly main: Correction;
  /** Every name, thresholds resolved, in the order given. */
  readonly choices: readonly CorrectionChoice[];
}

/** commander's key of an option: `--trm-k1-veto-k2` → `trmK1VetoK2`. */
function camel(flag: string): string {
  return flag.slice(2).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function legacyGiven(
  kind: string,
  cap: number,
  bounds: readonly [number, number] | undefined,
): Record<string, number> {
  if (kind.endsWith("-trunc")) return { cap };
  return bounds ? { lo: bounds[0], hi: bounds[1] } : { hi: cap };
}

/** The thresholds given for `name` by its own options, or what is wrong with one. */
function thresholdsGiven(name: string, values: MismatchFlags): Record<string, number> | string {
  const given: Record<string, number> = {};
  for (const p of CORRECTION_PARAMS[name] ?? []) {
    const flag = optionName(name, p.key);
    const raw = values[camel(flag)];
    if (raw === undefined) continue;
    const v = Number(raw);
    if (typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(v)) {
      return `${flag}: expected a number, got "${String(raw)}"`;
    }
    given[p.key] = v;
  }
  return given;
}

function parseBounds(text: string | undefined): readonly [number, number] | undefined | string {
  if (text === undefined) return undefined;
  const [lo, hi] = text.split(",").map(Number);
  if (lo === undefined || hi === undefined || !(lo >= 0) || !(hi >= lo)) {
    return `--bounds: expected LO,HI with 0 <= LO <= HI, got "${text}"`;
  }
  return [lo, hi];
}

/** Parses the correction flags, or says what is wrong (exit 2). */
export function parseCorrections(values: MismatchFlags): CorrectionsAsked | string {
  const cap = Number(values.cap);
  if (!(cap > 0)) return `--cap: expected a positive number, got "${values.cap}"`;
  const bounds = parseBounds(values.bounds);
  if (typeof bounds === "string") return bounds;
  const names = values.correction
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) return "--correction: give at least one name";
  const choices: CorrectionChoice[] = [];
  for (const name of names) {
    const rule = ruleNamed(name);
    if (!rule) return `--correction: ${String(choose(name))}`;
    const isLegacy = LEGACY_CORRECTIONS.includes(rule.name);
    const given = isLegacy
      ? legacyGiven(rule.name, cap, bounds)
      : thresholdsGiven(rule.name, values);
    if (typeof given === "string") return given;
    const choice = choose(rule.name, given);
    if (typeof choice === "string") return choice;
    choices.push(choice);
  }
  const first = choices.find((c) => LEGACY_CORRECTIONS.includes(c.name));
  const main = first
    ? correction(first.name as CorrectionKind, {
        cap: first.params.cap ?? cap,
        ...(first.params.hi === undefined ? {} : { hi: first.params.hi }),
        ...(first.params.lo === undefined ? {} : { lo: first.params.lo }),
      })
    : correction("token-trunc", { cap });
  return { main, choices };
}
