import type { RowSummary } from "./rowSummary";

/** Reward spread of one GRPO group (atropos line, slime `group_index`). */
export interface GroupStats {
  readonly group: string;
  /** Row indices (0-based positions in the file's rows) of the members, in file order. */
  readonly members: readonly number[];
  /** Members with a reward. */
  readonly rewarded: number;
  readonly mean: number | undefined;
  /** Population standard deviation of the rewards (what GRPO normalizes by). */
  readonly std: number | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  /** All rewards equal (and at least two): every advantage is 0, the group carries no gradient. */
  readonly zeroVariance: boolean;
  /** Row index of the best and worst rewarded member. */
  readonly best: number | undefined;
  readonly worst: number | undefined;
  /** Mean of the members' recorded advantages, when any member has one. */
  readonly meanAdvantage: number | undefined;
}

/** Groups the rows by `group` (rows without one are skipped), in order of first appearance. */
export function groupStats(rows: readonly RowSummary[]): GroupStats[] {
  const byGroup = new Map<string, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const g = rows[i]?.group;
    if (g === undefined) continue;
    const members = byGroup.get(g);
    if (members) members.push(i);
    else byGroup.set(g, [i]);
  }
  return [...byGroup].map(([group, members]) => statsOf(group, members, rows));
}

function statsOf(group: string, members: number[], rows: readonly RowSummary[]): GroupStats {
  let sum = 0;
  let n = 0;
  let best: number | undefined;
  let worst: number | undefined;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let advSum = 0;
  let advN = 0;
  for (const i of members) {
    const row = rows[i];
    if (row?.advantage !== undefined) {
      advSum += row.advantage;
      advN += 1;
    }
    const r = row?.reward;
    if (r === undefined) continue;
    sum += r;
    n += 1;
    if (r > max) [max, best] = [r, i];
    if (r < min) [min, worst] = [r, i];
  }
  const mean = n === 0 ? undefined : sum / n;
  let sq = 0;
  for (const i of members) {
    const r = rows[i]?.reward;
    if (r !== undefined && mean !== undefined) sq += (r - mean) ** 2;
  }
  return {
    group,
    members,
    rewarded: n,
    mean,
    std: mean === undefined ? undefined : Math.sqrt(sq / n),
    min: n === 0 ? undefined : min,
    max: n === 0 ? undefined : max,
    zeroVariance: n >= 2 && min === max,
    best,
    worst,
    meanAdvantage: advN === 0 ? undefined : advSum / advN,
  };
}
