import { isRecord } from "../isRecord";
import { segmentOfToken } from "../layout/flatTrajectory";
import type { TopLogprob, Trajectory, TrajectoryStatus } from "../trajectory/types";

/** One node of a recorded tree path: `[start, end)` in the member's own token indices. */
export interface RecordedPathNode {
  readonly id: string;
  readonly parent: string | null;
  readonly start: number;
  readonly end: number;
}

/** The tree a producer recorded for one trajectory (`metadata.recorded_tree`, docs/forest.md). */
export interface RecordedPath {
  readonly tree: string;
  readonly path: readonly RecordedPathNode[];
}

/**
 * What the forest needs of one trajectory, compact enough to hold a whole group: its ids and
 * loss mask as typed arrays (token index space), the model tokens demoted to mask 0, its reward,
 * status and recorded advantage, and lookups for a token's logprob and top-k.
 */
export interface ForestMember {
  readonly id: string;
  /** 1-based line of the file, 0 for an episode of our own store. */
  readonly line: number;
  readonly row: number;
  readonly ids: Int32Array;
  /** 1 where the token is trained. */
  readonly mask: Uint8Array;
  /** Tokens of model segments with mask 0 (demoted: drift handling, shared completions). */
  readonly demoted: number;
  readonly reward: number | undefined;
  readonly status: TrajectoryStatus;
  /** The advantage the record carries (mean of per-token ones), when it has one. */
  readonly advantage: number | undefined;
  readonly recorded: RecordedPath | undefined;
  /** The sampled logprob of token `i`, undefined when none was recorded. */
  readonly logprobAt: (i: number) => number | undefined;
  /** The recorded top-k at token `i`, undefined when none was recorded. */
  readonly topKAt: (i: number) => readonly TopLogprob[] | undefined;
}

function pathNodeOf(v: unknown): RecordedPathNode | string {
  if (!isRecord(v)) return "expected an object";
  const { id, parent, start, end } = v;
  if (typeof id !== "string") return "id: expected a string";
  if (parent !== null && typeof parent !== "string") return "parent: expected a string or null";
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) {
    return "start/end: expected integers";
  }
  return { id, parent, start: Number(start), end: Number(end) };
}

/**
 * `metadata.recorded_tree` of a trajectory as a RecordedPath, undefined when absent, or a message
 * naming the field that is malformed.
 */
export function recordedPathOf(t: Trajectory): RecordedPath | undefined | string {
  const raw = t.metadata.recorded_tree;
  if (raw === undefined) return undefined;
  if (!isRecord(raw) || typeof raw.tree !== "string" || !Array.isArray(raw.path)) {
    return "recorded_tree: expected {tree: string, path: [...]}";
  }
  const path: RecordedPathNode[] = [];
  for (const [k, entry] of raw.path.entries()) {
    const node = pathNodeOf(entry);
    if (typeof node === "string") return `recorded_tree.path[${k}].${node}`;
    path.push(node);
  }
  return { tree: raw.tree, path };
}

function segmentLookup(t: Trajectory): (i: number) => { s: number; k: number } | undefined {
  const starts: number[] = [];
  let n = 0;
  for (const s of t.segments) {
    starts.push(n);
    n += s.tokenIds.length;
  }
  starts.push(n);
  return (i) => {
    if (i < 0 || i >= n) return undefined;
    const s = segmentOfToken(starts, i);
    return { s, k: i - (starts[s] ?? 0) };
  };
}

/** What memberOfTrajectory is told besides the trajectory. */
export interface MemberOptions {
  readonly advantage: number | undefined;
  readonly recorded: RecordedPath | undefined;
  /** Keep logprob and top-k lookups (they hold the trajectory); false for file-wide scans. */
  readonly isDetailed: boolean;
}

const NONE = () => undefined;

/** One trajectory as a forest member (ids and mask copied once into typed arrays). */
export function memberOfTrajectory(
  t: Trajectory,
  { advantage, recorded, isDetailed }: MemberOptions,
): ForestMember {
  let n = 0;
  for (const s of t.segments) n += s.tokenIds.length;
  const ids = new Int32Array(n);
  const mask = new Uint8Array(n);
  let at = 0;
  let demoted = 0;
  for (const s of t.segments) {
    for (let k = 0; k < s.tokenIds.length; k++) {
      ids[at] = s.tokenIds[k] ?? 0;
      const m = s.lossMask[k] === 1 ? 1 : 0;
      mask[at] = m;
      if (m === 0 && s.kind === "model") demoted += 1;
      at += 1;
    }
  }
  const reward = typeof t.reward === "number" && Number.isFinite(t.reward) ? t.reward : undefined;
  return {
    id: t.id,
    line: t.source.line ?? 0,
    row: t.source.row ?? 0,
    ...{ ids, mask, demoted, reward, status: t.status, advantage, recorded },
    ...(isDetailed ? lookups(t) : { logprobAt: NONE, topKAt: NONE }),
  };
}

function lookups(t: Trajectory): Pick<ForestMember, "logprobAt" | "topKAt"> {
  const locate = segmentLookup(t);
  return {
    logprobAt: (i) => {
      const p = locate(i);
      const lp = p && t.segments[p.s]?.logprobs[p.k];
      return typeof lp === "number" ? lp : undefined;
    },
    topKAt: (i) => {
      const p = locate(i);
      return (p && t.segments[p.s]?.topLogprobs?.[p.k]) ?? undefined;
    },
  };
}
