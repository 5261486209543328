import type { Trajectory } from "../trajectory/types";
import type { GroupKind } from "./groupForest";

/** The group a trajectory belongs to and why (docs/forest.md#groups). */
export interface GroupKey {
  readonly key: string;
  readonly kind: GroupKind;
}

function scalarKey(v: unknown): string | undefined {
  return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
}

function rolloutIdOf(t: Trajectory): string | undefined {
  const own = scalarKey(t.metadata.rollout_id);
  if (own !== undefined) return own;
  const inner = t.metadata.metadata;
  return typeof inner === "object" && inner !== null && "rollout_id" in inner
    ? scalarKey(inner.rollout_id)
    : undefined;
}

function recordedTreeIdOf(t: Trajectory): string | undefined {
  const raw = t.metadata.recorded_tree;
  return typeof raw === "object" && raw !== null && "tree" in raw ? scalarKey(raw.tree) : undefined;
}

/**
 * The group of one trajectory: its recorded tree (`metadata.recorded_tree.tree`), else its GRPO
 * group (atropos line, slime `group_index`, NeMo/verifiers `group.id`: `Trajectory.group`), else
 * the slime/miles `rollout_id` its siblings share, else the parent it was branched from.
 */
export function groupKeyOf(t: Trajectory): GroupKey | undefined {
  const tree = recordedTreeIdOf(t);
  if (tree !== undefined) return { key: tree, kind: "tree" };
  if (t.group !== undefined) return { key: t.group, kind: "group" };
  const rollout = rolloutIdOf(t);
  if (rollout !== undefined) return { key: `rollout ${rollout}`, kind: "rollout" };
  if (t.lineage) return { key: t.lineage.parentId, kind: "branches" };
  return undefined;
}

/** One group of a list: its key and kind, and the members' positions in the list. */
export interface TrajectoryGroup extends GroupKey {
  readonly indices: readonly number[];
}

/** What grouping needs of one trajectory: its id, the parent it was branched from, its key. */
export interface GroupItem {
  readonly id: string;
  readonly parentId: string | undefined;
  readonly key: GroupKey | undefined;
}

/** The GroupItem of a trajectory. */
export function groupItemOf(t: Trajectory): GroupItem {
  return { id: t.id, parentId: t.lineage?.parentId, key: groupKeyOf(t) };
}

/** Groups `list` by groupKeyOf, in order of first appearance (groupItems). */
export function groupTrajectories(list: readonly Trajectory[]): TrajectoryGroup[] {
  return groupItems(list.map(groupItemOf));
}

/**
 * Groups items by key, in order of first appearance; members keep the list's order. A branch
 * joins its root's group (branches of branches included), and so does the root itself when it is
 * in the list. Items in no group are left out.
 */
export function groupItems(list: readonly GroupItem[]): TrajectoryGroup[] {
  const parentOf = new Map<string, string>();
  for (const t of list) if (t.parentId !== undefined) parentOf.set(t.id, t.parentId);
  const rootOf = (id: string): string => {
    let at = id;
    for (let hops = 0; hops < list.length; hops++) {
      const up = parentOf.get(at);
      if (up === undefined) return at;
      at = up;
    }
    return at;
  };
  const branchRoots = new Set([...parentOf.keys()].map(rootOf));
  const groups = new Map<string, { kind: GroupKind; indices: number[] }>();
  for (const [i, t] of list.entries()) {
    let found = t.key;
    if (found?.kind === "branches") found = { key: rootOf(t.id), kind: "branches" };
    else if (!found && branchRoots.has(t.id)) found = { key: t.id, kind: "branches" };
    if (!found) continue;
    const id = `${found.kind}\u0000${found.key}`;
    const group = groups.get(id) ?? { kind: found.kind, indices: [] };
    groups.set(id, group);
    group.indices.push(i);
  }
  return [...groups].map(([id, g]) => ({
    key: id.slice(id.indexOf("\u0000") + 1),
    kind: g.kind,
    indices: g.indices,
  }));
}
