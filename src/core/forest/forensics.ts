import type { TrajectoryStatus } from "../trajectory/types";
import { type ForestNode, type MemberIds, nodesOf } from "./prefixTree";

/** Why a group carries no GRPO gradient (docs/forest.md#zero-variance). */
export type ZeroVarianceCause =
  | "identical"
  | "all-failed"
  | "all-truncated"
  | "all-aborted"
  | "equal-reward"
  | "no-reward";

/** Sets of token-identical members: the leaves two or more members end in, by first member. */
export function duplicateSets(root: ForestNode): number[][] {
  return nodesOf(root)
    .filter((n) => n.children.length === 0 && n.members.length >= 2)
    .map((n) => [...n.members])
    .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
}

function suffixHash(seq: ArrayLike<number>, from: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < seq.length; i++) {
    hash = Math.imul(hash ^ (seq[i] ?? 0), 0x01000193) >>> 0;
  }
  return hash;
}

function sameFrom(a: ArrayLike<number>, b: ArrayLike<number>, from: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = from; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Near-identical members: the same ids from token `k` on (equal lengths) but not token-identical,
 * so they differ only in their first k tokens. Sets of two or more, by first member; linear
 * (one hash per member, then a check against each bucket's first member).
 */
export function nearDuplicateSets(ids: MemberIds, k: number, exact: number[][]): number[][] {
  const exactOf = new Map<number, number>();
  for (const [s, set] of exact.entries()) for (const m of set) exactOf.set(m, s);
  const buckets = new Map<number, number[][]>();
  for (const [m, seq] of ids.entries()) {
    if (seq.length <= k) continue;
    const hash = suffixHash(seq, k);
    const sets = buckets.get(hash) ?? [];
    buckets.set(hash, sets);
    const home = sets.find((set) => sameFrom(ids[set[0] ?? 0] ?? [], seq, k));
    if (home) home.push(m);
    else sets.push([m]);
  }
  const out: number[][] = [];
  for (const sets of buckets.values()) {
    for (const set of sets) {
      const first = exactOf.get(set[0] ?? -1);
      const isAllExact = first !== undefined && set.every((m) => exactOf.get(m) === first);
      if (set.length >= 2 && !isAllExact) out.push(set);
    }
  }
  return out.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
}

/** Trained tokens that sit in more than one member's trained span (docs/forest.md#multiplicity). */
export interface Multiplicity {
  /** Token positions of shared nodes trained by two or more members. */
  readonly tokens: number;
  /** Most members training one position (1 when nothing is trained twice, 0 when nothing is trained). */
  readonly max: number;
  /** Trained (member, token) pairs on those positions. */
  readonly repeated: number;
  /** All trained (member, token) pairs of the group. */
  readonly trained: number;
  /** Positions trained more than once, per node id (only nodes that have some). */
  readonly byNode: ReadonlyMap<number, number>;
}

/** Counts, over the tree's nodes, the positions two or more members are trained on. Linear. */
export function multiplicity(root: ForestNode, masks: readonly ArrayLike<number>[]): Multiplicity {
  let tokens = 0;
  let max = 0;
  let repeated = 0;
  let trained = 0;
  for (const mask of masks) for (let i = 0; i < mask.length; i++) trained += mask[i] === 1 ? 1 : 0;
  const byNode = new Map<number, number>();
  for (const node of nodesOf(root)) {
    if (node.members.length < 2 || node.end <= node.start) continue;
    // Member by member over the span (sequential reads), counting trainers per position.
    const counts = new Uint32Array(node.end - node.start);
    for (const m of node.members) {
      const mask = masks[m];
      if (!mask) continue;
      const end = Math.min(node.end, mask.length);
      for (let i = node.start; i < end; i++) {
        const k = i - node.start;
        if (mask[i] === 1) counts[k] = (counts[k] ?? 0) + 1;
      }
    }
    let here = 0;
    for (const count of counts) {
      if (count > max) max = count;
      if (count >= 2) {
        here += 1;
        repeated += count;
      }
    }
    if (here > 0) byNode.set(node.id, here);
    tokens += here;
  }
  if (max === 0 && trained > 0) max = 1;
  return { tokens, max, repeated, trained, byNode };
}

/** What the zero-variance check reads of each member. */
export interface RewardFacts {
  readonly reward: number | undefined;
  readonly status: TrajectoryStatus;
}

/**
 * Whether every advantage of the group is 0, and why: token-identical members first (the root
 * cause), then all aborted, all truncated, rewards missing, all failed (equal rewards ≤ 0), equal
 * rewards with different completions. Groups of one member are never called zero-variance.
 */
export function zeroVariance(
  members: readonly RewardFacts[],
  isAllIdentical: boolean,
): ZeroVarianceCause | null {
  if (members.length < 2) return null;
  const rewards = members.map((m) => m.reward).filter((r): r is number => r !== undefined);
  if (rewards.length >= 2 && rewards.some((r) => r !== rewards[0])) return null;
  if (isAllIdentical) return "identical";
  if (members.every((m) => m.status === "aborted")) return "all-aborted";
  if (members.every((m) => m.status === "truncated")) return "all-truncated";
  if (rewards.length === 0) return "no-reward";
  if (rewards.length < 2) return null;
  return (rewards[0] ?? 0) <= 0 ? "all-failed" : "equal-reward";
}

/** Advantages computed from the rewards, next to the recorded ones. */
export interface Advantages {
  /** Per member, what the record carries; null when no member carries one. */
  readonly recorded: readonly (number | null)[] | null;
  /** GRPO: (r − mean) / std (population std; 0 when std is 0); null without a reward. */
  readonly grpo: readonly (number | null)[];
  /** r − mean (Dr. GRPO, RLOO-style centering without scaling); null without a reward. */
  readonly centered: readonly (number | null)[];
  /** Members whose recorded advantage matches none of GRPO (population or sample std) or r − mean. */
  readonly disagreeing: readonly number[];
}

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-3 * Math.max(1, Math.abs(b));
}

/** GRPO and centered advantages of the group's rewards, checked against the recorded ones. */
export function advantages(
  rewards: readonly (number | undefined)[],
  recorded: readonly (number | undefined)[],
): Advantages {
  const present = rewards.filter((r): r is number => r !== undefined);
  const n = present.length;
  const mean = n === 0 ? 0 : present.reduce((a, b) => a + b, 0) / n;
  const sq = present.reduce((a, r) => a + (r - mean) ** 2, 0);
  const std = n === 0 ? 0 : Math.sqrt(sq / n);
  const sampleStd = n < 2 ? 0 : Math.sqrt(sq / (n - 1));
  const scaled = (r: number, s: number) => (s === 0 ? 0 : (r - mean) / s);
  const grpo = rewards.map((r) => (r === undefined ? null : scaled(r, std)));
  const centered = rewards.map((r) => (r === undefined ? null : r - mean));
  const hasRecorded = recorded.some((a) => a !== undefined);
  const disagreeing: number[] = [];
  for (const [m, a] of recorded.entries()) {
    const r = rewards[m];
    if (a === undefined || r === undefined) continue;
    const candidates = [scaled(r, std), scaled(r, sampleStd), r - mean];
    if (!candidates.some((c) => close(a, c))) disagreeing.push(m);
  }
  return {
    recorded: hasRecorded ? recorded.map((a) => a ?? null) : null,
    grpo,
    centered,
    disagreeing,
  };
}
