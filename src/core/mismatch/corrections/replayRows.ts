import { readAdvantage } from "../../files/rowSummary";
import { advantages } from "../../forest/forensics";
import { groupKeyOf } from "../../forest/groupKeys";
import { laneValues } from "../../trajectory/lanes";
import type { LaneValues, Trajectory } from "../../trajectory/types";
import { defaultLanes } from "../trajectoryMismatch";
import type { CorrectionChoice } from "./registry";
import { type Replay, replay } from "./replay";
import type { AdvantageSource, ReplayRow } from "./types";

/** The compared tokens of `t` under lanes [a, b] (mask 1, both finite), or why there are none. */
export function replayRowOf(
  t: Trajectory,
  lanes: readonly [string, string],
  row: number,
  advantage?: { value: number; source: AdvantageSource },
): ReplayRow | string {
  const a = laneValues(t, lanes[0]);
  const b = laneValues(t, lanes[1]);
  if (!a || !b)
    return `no lane ${[a ? "" : lanes[0], b ? "" : lanes[1]].filter(Boolean).join(", ")}`;
  const at: number[] = [];
  const xs: number[] = [];
  const ys: number[] = [];
  let k = 0;
  for (const s of t.segments) {
    for (let i = 0; i < s.lossMask.length; i++, k++) {
      if (s.lossMask[i] !== 1) continue;
      const x = valueAt(a, k);
      const y = valueAt(b, k);
      if (!Number.isFinite(x - y)) continue;
      at.push(k);
      xs.push(x);
      ys.push(y);
    }
  }
  return {
    row,
    id: t.id,
    at: Int32Array.from(at),
    a: Float64Array.from(xs),
    b: Float64Array.from(ys),
    advantage: advantage?.value,
    advantageSource: advantage?.source,
  };
}

function valueAt(lane: LaneValues, k: number): number {
  const v = lane[k];
  return v === null || v === undefined ? Number.NaN : v;
}

/** A row waiting for its group's advantages. */
interface Pending {
  readonly row: ReplayRow;
  readonly reward: number | undefined;
  readonly recorded: number | undefined;
  readonly group: string | undefined;
}

/** The rows of a file (or any list of trajectories), their advantages, then every replay. */
export interface ReplayCollector {
  /** Adds trajectory `t` (file row `row`); a string when it has no two lanes to compare. */
  add(t: Trajectory, row: number): string | undefined;
  finish(choices: readonly CorrectionChoice[]): { rows: ReplayRow[]; replays: Replay[] };
}

/**
 * Collects rows under `lanes` (each trajectory's default lanes when undefined). A row's advantage
 * is the one it records (`readAdvantage`), else GRPO's (r − mean)/std over its group's rewards
 * (`groupKeyOf`, population std, as `groups` computes it), else none.
 */
export function replayCollector(lanes: readonly [string, string] | undefined): ReplayCollector {
  const pending: Pending[] = [];
  return {
    add(t, row) {
      const pair = lanes ?? defaultLanes(t);
      if (!pair) return "no second lane to compare with the sampled logprobs";
      const r = replayRowOf(t, pair, row);
      if (typeof r === "string") return r;
      const reward =
        typeof t.reward === "number" && Number.isFinite(t.reward) ? t.reward : undefined;
      pending.push({ row: r, reward, recorded: readAdvantage(t), group: groupKeyOf(t)?.key });
      return undefined;
    },
    finish(choices) {
      const rows = withAdvantages(pending);
      return { rows, replays: choices.map((c) => replay(rows, c)) };
    },
  };
}

function withAdvantages(pending: readonly Pending[]): ReplayRow[] {
  const byGroup = new Map<string, number[]>();
  pending.forEach((p, i) => {
    if (p.group === undefined) return;
    const list = byGroup.get(p.group) ?? [];
    list.push(i);
    byGroup.set(p.group, list);
  });
  const computed = new Map<number, number>();
  for (const members of byGroup.values()) {
    if (members.length < 2) continue;
    const rewards = members.map((i) => pending[i]?.reward);
    const grpo = advantages(rewards, []).grpo;
    members.forEach((i, m) => {
      const a = grpo[m];
      if (a !== null && a !== undefined) computed.set(i, a);
    });
  }
  return pending.map((p, i) => {
    if (p.recorded !== undefined)
      return { ...p.row, advantage: p.recorded, advantageSource: "recorded" };
    const a = computed.get(i);
    return a === undefined ? p.row : { ...p.row, advantage: a, advantageSource: "group" };
  });
}

/**
 * Every choice replayed on one trajectory alone (the batch is the trajectory; its advantage is
 * the recorded one, the group's rows being elsewhere), or why it cannot be.
 */
export function trajectoryReplays(
  t: Trajectory,
  lanes: readonly [string, string],
  choices: readonly CorrectionChoice[],
): { rows: ReplayRow[]; replays: Replay[] } | string {
  const recorded = readAdvantage(t);
  const row = replayRowOf(
    t,
    lanes,
    0,
    recorded === undefined ? undefined : { value: recorded, source: "recorded" },
  );
  if (typeof row === "string") return row;
  return { rows: [row], replays: choices.map((c) => replay([row], c)) };
}
