import { type CorrectionChoice, ruleNamed } from "./registry";
import {
  type BatchFacts,
  type CorrectionRule,
  REPLAY,
  type ReplayRow,
  type RowOutcome,
} from "./types";

/** What one correction did to a batch of rows, in numbers (`mismatch --json` `replays`). */
export interface ReplaySummary {
  readonly name: string;
  readonly params: Readonly<Record<string, number>>;
  readonly rows: number;
  /** Compared tokens of every row (mask 1, both lanes finite). */
  readonly compared: number;
  readonly kept: number;
  readonly clipped: number;
  readonly masked: number;
  readonly weighted: number;
  /** Tokens of rows without the advantage the rule needs: not decided, never counted as kept. */
  readonly unchecked: number;
  readonly fractionMasked: number;
  readonly fractionClipped: number;
  readonly fractionUnchecked: number;
  /** (Σw)² / (n·Σw²) over the decided tokens (masked ones weigh 0); 0 when none. */
  readonly ess: number;
  /** Rows whose every compared token weighs 0 (dropped from the loss), by row index. */
  readonly rowsDropped: readonly number[];
  /** Rows the rule could not decide (no advantage), by row index. */
  readonly rowsUnchecked: readonly number[];
}

export interface Replay {
  readonly rule: CorrectionRule;
  readonly choice: CorrectionChoice;
  readonly outcomes: readonly RowOutcome[];
  readonly facts: BatchFacts;
  readonly summary: ReplaySummary;
}

interface Counts {
  compared: number;
  byVerdict: number[];
  wSum: number;
  wSumSq: number;
  decided: number;
  dropped: number[];
  unchecked: number[];
}

function countRow(c: Counts, row: ReplayRow, o: RowOutcome): void {
  const n = row.a.length;
  c.compared += n;
  let zero = 0;
  for (let j = 0; j < n; j++) {
    const v = o.verdict[j] as number;
    c.byVerdict[v] = (c.byVerdict[v] ?? 0) + 1;
    if (v === REPLAY.unchecked) continue;
    const w = o.weight[j] as number;
    c.decided += 1;
    c.wSum += w;
    c.wSumSq += w * w;
    if (w === 0) zero += 1;
  }
  if (n > 0 && o.verdict[0] === REPLAY.unchecked) c.unchecked.push(row.row);
  else if (n > 0 && zero === n) c.dropped.push(row.row);
}

function summarize(
  choice: CorrectionChoice,
  rows: readonly ReplayRow[],
  outcomes: readonly RowOutcome[],
): ReplaySummary {
  const c: Counts = {
    compared: 0,
    byVerdict: [],
    wSum: 0,
    wSumSq: 0,
    decided: 0,
    dropped: [],
    unchecked: [],
  };
  for (const [i, row] of rows.entries()) countRow(c, row, outcomes[i] as RowOutcome);
  const at = (v: number) => c.byVerdict[v] ?? 0;
  const of = (x: number) => (c.compared === 0 ? 0 : x / c.compared);
  return {
    name: choice.name,
    params: choice.params,
    rows: rows.length,
    compared: c.compared,
    kept: at(REPLAY.kept),
    clipped: at(REPLAY.clipped),
    masked: at(REPLAY.masked),
    weighted: at(REPLAY.weighted),
    unchecked: at(REPLAY.unchecked),
    fractionMasked: of(at(REPLAY.masked)),
    fractionClipped: of(at(REPLAY.clipped)),
    fractionUnchecked: of(at(REPLAY.unchecked)),
    ess: c.decided === 0 || c.wSumSq === 0 ? 0 : (c.wSum * c.wSum) / (c.decided * c.wSumSq),
    rowsDropped: c.dropped,
    rowsUnchecked: c.unchecked,
  };
}

/** Replays `choice` on a batch of rows (a trajectory, or a whole file for M2PO's batch). */
export function replay(rows: readonly ReplayRow[], choice: CorrectionChoice): Replay {
  const rule = ruleNamed(choice.name);
  if (!rule) throw new Error(`unknown correction ${choice.name}`);
  const { outcomes, facts } = rule.apply(rows, choice.params);
  return { rule, choice, outcomes, facts, summary: summarize(choice, rows, outcomes) };
}

/**
 * Who decided token `token` (a trajectory token index) of row `rowIndex` of the batch and why;
 * undefined when that token was not compared.
 */
export function explainToken(
  r: Replay,
  rows: readonly ReplayRow[],
  rowIndex: number,
  token: number,
): { verdict: number; weight: number; reason: string } | undefined {
  const row = rows[rowIndex];
  const o = r.outcomes[rowIndex];
  if (!row || !o) return undefined;
  const j = row.at.indexOf(token);
  if (j < 0) return undefined;
  return {
    verdict: o.verdict[j] as number,
    weight: o.weight[j] as number,
    reason: r.rule.explain(row, o, j, r.choice.params, r.facts),
  };
}

/** One correction's word on one token: its verdict, weight and why. */
export interface TokenVerdict {
  readonly name: string;
  readonly title: string;
  readonly verdict: number;
  readonly weight: number;
  readonly reason: string;
}

/** Every replay's verdict on token `token` of row `rowIndex` (those that compared it). */
export function verdictsAt(
  replays: readonly Replay[],
  rows: readonly ReplayRow[],
  rowIndex: number,
  token: number,
): TokenVerdict[] {
  const out: TokenVerdict[] = [];
  for (const r of replays) {
    const e = explainToken(r, rows, rowIndex, token);
    if (e) out.push({ name: r.rule.name, title: r.rule.title, ...e });
  }
  return out;
}
