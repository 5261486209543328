import type { RecordedPath } from "./members";
import type { ForestNode, MemberIds } from "./prefixTree";

interface Building {
  id: number;
  start: number;
  end: number;
  members: number[];
  children: Building[];
  recordedId?: string;
  parent?: string | null;
}

/** A recorded tree as forest nodes, and every way its paths disagree with the ids. */
export interface RecordedTree {
  readonly root: ForestNode;
  /** One line each: a path that is not a root-first chain, ranges off the ids, shared nodes whose ids differ. */
  readonly problems: readonly string[];
}

/** What is wrong with one member's path on its own (chain, ranges), as one-line problems. */
function pathProblems(m: number, path: RecordedPath["path"], length: number): string[] {
  const problems: string[] = [];
  let at = 0;
  let parent: string | null = null;
  for (const [k, node] of path.entries()) {
    const where = `member ${m} path[${k}] (node ${node.id})`;
    if (node.parent !== parent) {
      problems.push(
        `${where}: parent is ${node.parent ?? "null"}, the path says ${parent ?? "null"}`,
      );
    }
    if (node.start !== at) problems.push(`${where}: starts at ${node.start}, not ${at}`);
    if (node.end < node.start || node.end > length) {
      problems.push(`${where}: range [${node.start}, ${node.end}) is outside its ${length} ids`);
    }
    at = node.end;
    parent = node.id;
  }
  if (at !== length) problems.push(`member ${m}: its path ends at ${at} but it has ${length} ids`);
  return problems;
}

/** The first position in [start, end) where members a and b differ, or -1. */
function firstDifference(ids: MemberIds, a: number, b: number, start: number, end: number): number {
  const x = ids[a];
  const y = ids[b];
  if (!x || !y) return start;
  for (let i = start; i < end; i++) if (x[i] !== y[i] || i >= x.length || i >= y.length) return i;
  return -1;
}

/** Checks that every member passing through `node` holds the same ids over its range. */
function sharedIdProblems(ids: MemberIds, node: Building, ranges: Map<number, [number, number]>) {
  const problems: string[] = [];
  const [first, ...rest] = node.members;
  if (first === undefined) return problems;
  for (const m of rest) {
    const range = ranges.get(m);
    if (range && (range[0] !== node.start || range[1] !== node.end)) {
      problems.push(
        `node ${node.recordedId}: member ${m} records [${range[0]}, ${range[1]}), member ${first} [${node.start}, ${node.end})`,
      );
      continue;
    }
    const at = firstDifference(ids, first, m, node.start, node.end);
    if (at >= 0) {
      problems.push(
        `node ${node.recordedId}: members ${first} and ${m} share it but their ids differ at token ${at}`,
      );
    }
  }
  return problems;
}

/**
 * The tree a producer recorded (one root-first path per member, docs/forest.md), as forest nodes
 * checked against the ids. Several roots hang under an empty root node.
 */
export function recordedTree(paths: readonly RecordedPath[], ids: MemberIds): RecordedTree {
  const problems: string[] = [];
  const byId = new Map<string, Building>();
  const rangesOf = new Map<string, Map<number, [number, number]>>();
  let next = 1;
  const roots: Building[] = [];
  for (const [m, recorded] of paths.entries()) {
    problems.push(...pathProblems(m, recorded.path, ids[m]?.length ?? 0));
    for (const entry of recorded.path) {
      let node = byId.get(entry.id);
      if (!node) {
        node = { id: next++, start: entry.start, end: entry.end, members: [], children: [] };
        node.recordedId = entry.id;
        node.parent = entry.parent;
        byId.set(entry.id, node);
        rangesOf.set(entry.id, new Map());
        const parent = entry.parent === null ? undefined : byId.get(entry.parent);
        (parent ? parent.children : roots).push(node);
      } else if (node.parent !== entry.parent) {
        problems.push(
          `node ${entry.id}: member ${m} gives parent ${entry.parent ?? "null"}, an earlier member ${node.parent ?? "null"}`,
        );
      }
      node.members.push(m);
      rangesOf.get(entry.id)?.set(m, [entry.start, entry.end]);
    }
  }
  for (const [key, node] of byId) {
    problems.push(...sharedIdProblems(ids, node, rangesOf.get(key) ?? new Map()));
  }
  const only = roots.length === 1 ? roots[0] : undefined;
  const root: ForestNode = only ?? {
    id: 0,
    start: 0,
    end: 0,
    members: paths.map((_, m) => m),
    children: roots,
  };
  return { root, problems };
}
