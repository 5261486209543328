import {
  type Advantages,
  advantages,
  duplicateSets,
  type Multiplicity,
  multiplicity,
  nearDuplicateSets,
  type ZeroVarianceCause,
  zeroVariance,
} from "./forensics";
import type { ForestMember, RecordedPath } from "./members";
import { type BranchPoint, branchPoints, buildPrefixTree, type ForestNode } from "./prefixTree";
import { recordedTree } from "./recordedTree";

/** How the members came to be one group (docs/forest.md#groups). */
export type GroupKind = "group" | "rollout" | "tree" | "branches";

/** A tree's siblings sharing a root, and how their rewards add up (slime's reward/K fan-out). */
export interface RewardSplit {
  readonly siblings: number;
  readonly sum: number;
  /** Every sibling carries the same reward (sum / siblings). */
  readonly isEven: boolean;
}

/** What a view shows of one member (leaf labels, colours, links). */
export interface MemberRef {
  readonly id: string;
  /** 1-based line in the file (0 for an episode of our own store), and row inside the line. */
  readonly line: number;
  readonly row: number;
  readonly reward: number | undefined;
  readonly tokens: number;
  readonly status: ForestMember["status"];
}

/** The forest of one group and everything found in it. */
export interface GroupForest {
  readonly key: string;
  readonly kind: GroupKind;
  readonly size: number;
  readonly members: readonly MemberRef[];
  readonly root: ForestNode;
  readonly isRecorded: boolean;
  readonly branchPoints: readonly BranchPoint[];
  readonly duplicateSets: readonly number[][];
  /** Same from token `nearK` on, not token-identical. */
  readonly nearDuplicateSets: readonly number[][];
  readonly nearK: number;
  readonly zeroVariance: boolean;
  readonly zeroVarianceCause: ZeroVarianceCause | null;
  readonly multiplicity: Multiplicity;
  /** Members with model tokens demoted to mask 0, and how many. */
  readonly demoted: readonly { readonly member: number; readonly tokens: number }[];
  readonly advantages: Advantages;
  readonly rewardSplit: RewardSplit | undefined;
  /** Where a recorded tree disagrees with the ids (each a finding). */
  readonly treeProblems: readonly string[];
  /**
   * Members with token ids: those without (a text-only record) are in no duplicate set, and a
   * group with fewer than two has its token checks (duplicates, branch points, multiplicity)
   * not run, which `causes` says.
   */
  readonly withIds: number;
  /** False when a group of two or more has fewer than two members with ids: its token checks did not run. */
  readonly isTokenChecked: boolean;
  /** One line per finding, each saying what to act on. */
  readonly causes: readonly string[];
}

/** Options of analyzeGroup: `nearK` is the k of near-identical members (tokens). */
export interface AnalyzeOptions {
  readonly nearK: number;
}

/** The k near-identical members are compared after, unless told (docs/forest.md). */
export const DEFAULT_NEAR_K = 32;

function treeOf(members: readonly ForestMember[]) {
  const ids = members.map((m) => m.ids);
  const paths = members.map((m) => m.recorded);
  const isRecorded = paths.length > 0 && paths.every((p) => p !== undefined);
  if (!isRecorded) return { root: buildPrefixTree(ids), isRecorded, problems: [] };
  const { root, problems } = recordedTree(paths as RecordedPath[], ids);
  return { root, isRecorded, problems };
}

function rewardSplitOf(kind: GroupKind, members: readonly ForestMember[]): RewardSplit | undefined {
  if (kind === "group" || members.length < 2) return undefined;
  const rewards = members.map((m) => m.reward);
  if (rewards.some((r) => r === undefined)) return undefined;
  const present = rewards as number[]; // every reward checked defined on the line above
  const sum = present.reduce((a, b) => a + b, 0);
  return { siblings: members.length, sum, isEven: present.every((r) => r === present[0]) };
}

/** Builds the forest of one group (recorded tree when every member carries one) and its forensics. */
export function analyzeGroup(
  key: string,
  kind: GroupKind,
  members: readonly ForestMember[],
  options: AnalyzeOptions = { nearK: DEFAULT_NEAR_K },
): GroupForest {
  const ids = members.map((m) => m.ids);
  const { root, isRecorded, problems } = treeOf(members);
  const detail = {
    logprobAt: (m: number, i: number) => members[m]?.logprobAt(i),
    topKAt: (m: number, i: number) => members[m]?.topKAt(i),
  };
  // Text-only members have no ids to be token-identical by: in no set (unchecked, not equal).
  const hasIds = (m: number) => (members[m]?.ids.length ?? 0) > 0;
  const duplicates = duplicateSets(root)
    .map((set) => set.filter(hasIds))
    .filter((set) => set.length >= 2);
  const withIds = members.filter((m) => m.ids.length > 0).length;
  const isAllIdentical = duplicates.length === 1 && duplicates[0]?.length === members.length;
  const cause = zeroVariance(members, isAllIdentical);
  const found = {
    key,
    kind,
    size: members.length,
    members: members.map((m) => ({
      ...{ id: m.id, line: m.line, row: m.row, reward: m.reward },
      ...{ tokens: m.ids.length, status: m.status },
    })),
    root,
    isRecorded,
    branchPoints: branchPoints(root, ids, detail),
    duplicateSets: duplicates,
    nearDuplicateSets: nearDuplicateSets(ids, options.nearK, duplicates),
    nearK: options.nearK,
    zeroVariance: cause !== null,
    zeroVarianceCause: cause,
    multiplicity: multiplicity(
      root,
      members.map((m) => m.mask),
    ),
    demoted: members.flatMap((m, i) => (m.demoted > 0 ? [{ member: i, tokens: m.demoted }] : [])),
    advantages: advantages(
      members.map((m) => m.reward),
      members.map((m) => m.advantage),
    ),
    rewardSplit: rewardSplitOf(kind, members),
    treeProblems: problems,
    withIds,
    isTokenChecked: members.length < 2 || withIds >= 2,
  };
  return { ...found, causes: causesOf(found) };
}

const CAUSE_TEXT: Record<ZeroVarianceCause, string> = {
  identical:
    "identical completions (every member token-identical: a fixed seed or deterministic mode?)",
  "all-failed": "every member failed (equal reward ≤ 0)",
  "all-truncated": "every member was truncated",
  "all-aborted": "every member was aborted",
  "equal-reward": "equal rewards with different completions (the reward cannot tell them apart)",
  "no-reward": "no member has a reward",
};

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(4));
const list = (set: readonly number[]) => `{${set.join(", ")}}`;

/** The findings as one line each (what the CLI prints and the view shows as badges). */
export function causesOf(f: Omit<GroupForest, "causes">): string[] {
  const out: string[] = [];
  if (f.zeroVarianceCause === "equal-reward" && !f.isTokenChecked) {
    out.push("zero variance: equal rewards (the completions were not compared: no token ids)");
  } else if (f.zeroVarianceCause) out.push(`zero variance: ${CAUSE_TEXT[f.zeroVarianceCause]}`);
  if (!f.isTokenChecked) {
    out.push(
      `not checked: duplicates, branch points and multiplicity need token ids (${f.size - f.withIds} of ${f.size} members are text only)`,
    );
  }
  for (const set of f.duplicateSets) {
    out.push(`duplicates: members ${list(set)} are token-identical (${set.length} copies)`);
  }
  for (const set of f.nearDuplicateSets) {
    out.push(
      `near-duplicates: members ${list(set)} are identical after their first ${f.nearK} tokens`,
    );
  }
  const mult = f.multiplicity;
  if (mult.tokens > 0) {
    const share = mult.trained === 0 ? 0 : (100 * mult.repeated) / mult.trained;
    out.push(
      `multiplicity: ${mult.tokens} trained tokens are in more than one member's trained span (up to ×${mult.max}; ${share.toFixed(1)}% of the group's trained tokens)`,
    );
  }
  for (const d of f.demoted) {
    out.push(`demoted: member ${d.member} has ${d.tokens} model tokens at mask 0 (not trained)`);
  }
  if (f.advantages.disagreeing.length > 0) {
    out.push(
      `advantages: recorded advantages of members ${list(f.advantages.disagreeing)} match neither GRPO (r − mean)/std nor r − mean`,
    );
  }
  if (f.rewardSplit) {
    const s = f.rewardSplit;
    const each = s.isEven ? `, each ${fmt(s.sum / s.siblings)}` : "";
    out.push(
      `reward split: ${s.siblings} siblings share a root; rewards sum to ${fmt(s.sum)}${each}`,
    );
  }
  for (const p of f.treeProblems) out.push(`recorded tree disagrees with the ids: ${p}`);
  return out;
}
