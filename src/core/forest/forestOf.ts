import { readAdvantage } from "../files/rowSummary";
import type { Trajectory } from "../trajectory/types";
import { type AnalyzeOptions, analyzeGroup, DEFAULT_NEAR_K, type GroupForest } from "./groupForest";
import { groupTrajectories, type TrajectoryGroup } from "./groupKeys";
import { memberOfTrajectory, recordedPathOf } from "./members";

/** A group's forest with the file position of its first member. */
export interface LocatedForest extends GroupForest {
  /** 1-based line of the group's first member (0 for episodes of our own store). */
  readonly line: number;
}

/** The forest and forensics of one group of trajectories (`members` in the group's order). */
export function forestOfTrajectories(
  group: Pick<TrajectoryGroup, "key" | "kind">,
  members: readonly Trajectory[],
  {
    nearK = DEFAULT_NEAR_K,
    isDetailed = true,
  }: Partial<AnalyzeOptions> & { isDetailed?: boolean } = {},
): LocatedForest {
  const malformed: string[] = [];
  const forestMembers = members.map((t, m) => {
    const recorded = recordedPathOf(t);
    if (typeof recorded === "string") malformed.push(`member ${m}: ${recorded}`);
    return memberOfTrajectory(t, {
      advantage: readAdvantage(t),
      recorded: typeof recorded === "string" ? undefined : recorded,
      isDetailed,
    });
  });
  const forest = analyzeGroup(group.key, group.kind, forestMembers, { nearK });
  const line = members[0]?.source.line ?? 0;
  if (malformed.length === 0) return { ...forest, line };
  const treeProblems = [...malformed, ...forest.treeProblems];
  const causes = [...forest.causes, ...malformed.map((p) => `recorded tree is malformed: ${p}`)];
  return { ...forest, treeProblems, causes, line };
}

/** Every group of `list` (groupTrajectories), each with its forest, in order of first appearance. */
export function forestsOfList(
  list: readonly Trajectory[],
  options: Partial<AnalyzeOptions> & { isDetailed?: boolean } = {},
): LocatedForest[] {
  return groupTrajectories(list).map((g) =>
    forestOfTrajectories(
      g,
      g.indices.flatMap((i) => list[i] ?? []),
      options,
    ),
  );
}
