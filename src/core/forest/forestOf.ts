import { readAdvantage } from "../files/rowSummary";
import type { FormatId } from "../formats/types";
import type { Trajectory } from "../trajectory/types";
import { analyzeGroup, DEFAULT_NEAR_K, type GroupForest } from "./groupForest";
import { type GroupItem, groupItemOf, groupItems, type TrajectoryGroup } from "./groupKeys";
import { type ForestMember, memberOfTrajectory, recordedPathOf } from "./members";

/** A group's forest with the file position of its first member. */
export interface LocatedForest extends GroupForest {
  /** 1-based line of the group's first member (0 for episodes of our own store). */
  readonly line: number;
}

/** Options of the forest builders: near-identical k, and whether members keep logprob lookups. */
export interface ForestOptions {
  readonly nearK?: number;
  readonly isDetailed?: boolean;
}

/** A member, and why its `recorded_tree` could not be read when it could not. */
export interface ReadMember {
  readonly member: ForestMember;
  readonly malformed: string | undefined;
}

/** One trajectory as a forest member (its recorded path read, its advantage looked up). */
export function readMember(t: Trajectory, isDetailed = true): ReadMember {
  const recorded = recordedPathOf(t);
  const isBad = typeof recorded === "string";
  return {
    member: memberOfTrajectory(t, {
      advantage: readAdvantage(t),
      recorded: isBad ? undefined : recorded,
      isDetailed,
    }),
    malformed: isBad ? recorded : undefined,
  };
}

/** The forest and forensics of one group of read members (in the group's order). */
export function forestOfMembers(
  group: Pick<TrajectoryGroup, "key" | "kind">,
  read: readonly ReadMember[],
  nearK = DEFAULT_NEAR_K,
): LocatedForest {
  const forest = analyzeGroup(
    group.key,
    group.kind,
    read.map((r) => r.member),
    { nearK },
  );
  const line = read[0]?.member.line ?? 0;
  const malformed = read.flatMap((r, m) => (r.malformed ? [`member ${m}: ${r.malformed}`] : []));
  if (malformed.length === 0) return { ...forest, line };
  return {
    ...forest,
    treeProblems: [...malformed, ...forest.treeProblems],
    causes: [...forest.causes, ...malformed.map((p) => `recorded tree is malformed: ${p}`)],
    line,
  };
}

/** The forest and forensics of one group of trajectories (`members` in the group's order). */
export function forestOfTrajectories(
  group: Pick<TrajectoryGroup, "key" | "kind">,
  members: readonly Trajectory[],
  { nearK, isDetailed = true }: ForestOptions = {},
): LocatedForest {
  return forestOfMembers(
    group,
    members.map((t) => readMember(t, isDetailed)),
    nearK,
  );
}

/** Every group of `list`, each with its forest, in order of first appearance. */
export function forestsOfList(
  list: readonly Trajectory[],
  options: ForestOptions = {},
): LocatedForest[] {
  const collector = forestCollector({ isDetailed: true, ...options });
  collector.addLine(list, "rollout-lens/v1");
  return collector.finish();
}

/**
 * Builds the forests of a file line by line: an atropos line is a whole group and is analyzed
 * at once (nothing of it is kept); other members are kept compact (ids and mask, no logprob
 * lookups unless `isDetailed`) until `finish`, since a group's members may sit on any line.
 * `keep` picks the groups to build (a shard's share), by key.
 */
export function forestCollector(
  options: ForestOptions & { readonly keep?: (key: string) => boolean } = {},
) {
  const { nearK, isDetailed = false, keep = () => true } = options;
  const done: LocatedForest[] = [];
  const items: GroupItem[] = [];
  const held: ReadMember[] = [];
  return {
    /** The trajectories of one line, read in `format`. */
    addLine(trajectories: readonly Trajectory[], format: FormatId): void {
      if (format === "atropos") {
        const [first] = trajectories;
        const key = first?.group;
        if (first && key !== undefined && keep(key)) {
          const group = { key, kind: "group" as const };
          done.push(forestOfTrajectories(group, trajectories, { nearK, isDetailed }));
        }
        return;
      }
      for (const t of trajectories) {
        items.push(groupItemOf(t));
        held.push(readMember(t, isDetailed));
      }
    },
    /** Every group's forest, in order of its first line. */
    finish(): LocatedForest[] {
      for (const g of groupItems(items)) {
        if (!keep(g.key)) continue;
        const read = g.indices.flatMap((i) => held[i] ?? []);
        done.push(forestOfMembers(g, read, nearK));
      }
      return done.sort((a, b) => a.line - b.line);
    },
  };
}
