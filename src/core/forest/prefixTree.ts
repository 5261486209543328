/**
 * The token-level prefix tree of a set of members (docs/forest.md): each node is a token span
 * `[start, end)` that its members share, at the same token positions in every member; a node's
 * children start where its members first differ. A member that ends where others go on gets a
 * child of its own with `start === end`; members that are token-identical end in one leaf.
 */
export interface ForestNode {
  /** Unique within its tree (build order). */
  readonly id: number;
  /** [start, end) token positions (token index space of every member of the node). */
  readonly start: number;
  readonly end: number;
  /** Member numbers (0-based positions in the group, as the file orders it), ascending. */
  readonly members: readonly number[];
  readonly children: readonly ForestNode[];
  /** The producer's node id, when the tree was recorded rather than derived from the ids. */
  readonly recordedId?: string;
}

/** The ids a tree is built over: one token array per member. */
export type MemberIds = readonly ArrayLike<number>[];

interface Building {
  id: number;
  start: number;
  end: number;
  members: number[];
  children: Building[];
  recordedId?: string;
}

/** Extends a span shared by `set` from `from` while every member has the same next token. */
function sharedEnd(ids: MemberIds, set: readonly number[], from: number): number {
  const seqs = set.map((m) => ids[m] ?? []);
  const first = seqs[0];
  if (!first) return from;
  let limit = first.length;
  for (const seq of seqs) limit = Math.min(limit, seq.length);
  for (let end = from; end < limit; end++) {
    const token = first[end];
    for (let k = 1; k < seqs.length; k++) if (seqs[k]?.[end] !== token) return end;
  }
  return limit;
}

/** Splits `set` by the token at `at` (-1: the member ends there), in order of first appearance. */
function partition(ids: MemberIds, set: readonly number[], at: number): number[][] {
  const parts = new Map<number, number[]>();
  for (const m of set) {
    const seq = ids[m];
    const key = seq && at < seq.length ? (seq[at] ?? -1) : -1;
    const part = parts.get(key);
    if (part) part.push(m);
    else parts.set(key, [m]);
  }
  return [...parts.values()];
}

/**
 * Builds the prefix tree of `ids` (one array per member). Linear in the total number of tokens:
 * a node's span is walked once, reading each of its members' tokens once per position, and a
 * member alone in a node is never read again (its leaf runs to its own length).
 */
export function buildPrefixTree(ids: MemberIds): ForestNode {
  let next = 0;
  const make = (start: number, members: number[]): Building => ({
    ...{ id: next++, start, end: start },
    members,
    children: [],
  });
  const root = make(
    0,
    ids.map((_, m) => m),
  );
  const stack: Building[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const only = node.members.length === 1 ? ids[node.members[0] ?? 0] : undefined;
    if (only || node.members.length === 0) {
      node.end = only?.length ?? node.start;
      continue;
    }
    node.end = sharedEnd(ids, node.members, node.start);
    const parts = partition(ids, node.members, node.end);
    if (parts.length === 1) continue; // every member ends here: token-identical members
    for (const part of parts) {
      const child = make(node.end, part);
      node.children.push(child);
      stack.push(child);
    }
  }
  return root;
}

/** One child at a branch point: its members, and what its first token was when known. */
export interface BranchChild {
  readonly members: readonly number[];
  /** The child's first token id; undefined when its members end at the branch point. */
  readonly token: number | undefined;
  /** That token's sampled logprob (of the child's first member), when recorded. */
  readonly logprob: number | undefined;
  readonly topK: readonly { readonly tokenId: number; readonly logprob: number }[] | undefined;
}

/** Where members part: the token index where the children first differ. */
export interface BranchPoint {
  readonly node: number;
  readonly index: number;
  readonly children: readonly BranchChild[];
}

/** What a branch point needs to know of a member's token beyond its id. */
export interface TokenDetail {
  readonly logprobAt: (member: number, i: number) => number | undefined;
  readonly topKAt: (member: number, i: number) => BranchChild["topK"];
}

/** Every node with two or more children, in depth-first order (ids of the member arrays). */
export function branchPoints(
  root: ForestNode,
  ids: MemberIds,
  detail?: TokenDetail,
): BranchPoint[] {
  const out: BranchPoint[] = [];
  const stack: ForestNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.children.length >= 2) {
      const index = node.end;
      const children = node.children.map((c) => {
        const m = c.members[0] ?? 0;
        const seq = ids[m];
        const token = seq && c.end > c.start && index < seq.length ? seq[index] : undefined;
        const known = token !== undefined && detail !== undefined;
        return {
          members: c.members,
          token,
          logprob: known ? detail.logprobAt(m, index) : undefined,
          topK: known ? detail.topKAt(m, index) : undefined,
        };
      });
      out.push({ node: node.id, index, children });
    }
    for (let k = node.children.length - 1; k >= 0; k--) {
      const c = node.children[k];
      if (c) stack.push(c);
    }
  }
  return out;
}

/** Every node of the tree, depth first (parents before children). */
export function nodesOf(root: ForestNode): ForestNode[] {
  const out: ForestNode[] = [];
  const stack: ForestNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    out.push(node);
    for (let k = node.children.length - 1; k >= 0; k--) {
      const c = node.children[k];
      if (c) stack.push(c);
    }
  }
  return out;
}
