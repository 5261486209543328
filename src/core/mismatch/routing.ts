import { isNumbers } from "../isRecord";
import { tokenCount } from "../trajectory/flatten";
import type { Trajectory } from "../trajectory/types";

/*
 * MoE routing recorded beside the tokens (docs/mismatch.md "MoE routing"): slime/miles'
 * `rollout_routed_experts` ([T−1, layers, top-k], row t the experts the router chose at token t)
 * and any other metadata array named `…routed_experts` of the same shape (a trainer-side array
 * from routing replay, strands' `routed_experts` when it is per token). Two of them are compared
 * token × layer; one alone is shown with what is missing.
 */

/** One routing array: per token, the expert ids of each layer (undefined where none). */
export interface RoutingArray {
  readonly name: string;
  readonly layers: number;
  readonly topK: number;
  /** Tokens with a routing row. */
  readonly tokens: number;
  readonly at: (k: number) => readonly (readonly number[])[] | undefined;
}

function layersOf(row: unknown): number[][] | undefined {
  if (isNumbers(row)) return [row];
  if (Array.isArray(row) && row.length > 0 && row.every(isNumbers)) return row as number[][];
  return undefined;
}

/** `value` as a per-token routing array of a trajectory of `n` tokens, or why it is not one. */
function routingArray(name: string, value: unknown, n: number): RoutingArray | string {
  if (!Array.isArray(value)) return `${name} is not an array`;
  if (value.length < n - 1 || value.length > n) {
    return `${name} has ${value.length} entries for ${n} tokens: not one per token (strands records one per model call), not compared`;
  }
  let layers = 0;
  let topK = 0;
  let tokens = 0;
  for (const row of value) {
    const l = layersOf(row);
    if (!l) continue;
    tokens += 1;
    layers = Math.max(layers, l.length);
    topK = Math.max(topK, ...l.map((x) => x.length));
  }
  if (tokens === 0) return `${name} holds no per-layer expert ids`;
  return { name, layers, topK, tokens, at: (k) => layersOf(value[k]) };
}

/** The routing arrays a trajectory records, and the arrays named so that are not per token. */
export function routingArraysOf(t: Trajectory): { arrays: RoutingArray[]; problems: string[] } {
  const n = tokenCount(t.segments);
  const arrays: RoutingArray[] = [];
  const problems: string[] = [];
  const names = Object.keys(t.metadata).filter((k) => k.endsWith("routed_experts"));
  // The rollout side first: it is the one the engine sampled with.
  names.sort(
    (x, y) => Number(y === "rollout_routed_experts") - Number(x === "rollout_routed_experts"),
  );
  for (const name of names) {
    const value = t.metadata[name];
    // An empty or null field is a routing not recorded (strands writes `routed_experts: []`).
    if (value === null || (Array.isArray(value) && value.length === 0)) continue;
    const r = routingArray(name, value, n);
    if (typeof r === "string") problems.push(r);
    else arrays.push(r);
  }
  return { arrays, problems };
}

/** Mean |δ| over a set of tokens, and how many. */
export interface DeltaGroup {
  readonly tokens: number;
  readonly meanAbsDelta: number;
}

export interface RoutingComparison {
  readonly names: readonly [string, string];
  /** Tokens routed in both arrays. */
  readonly tokens: number;
  /** (token, layer) cells compared, and those where both chose the same set of experts. */
  readonly cells: number;
  readonly agreeing: number;
  /** Per layer, the fraction of tokens whose expert sets agree. */
  readonly perLayer: readonly number[];
  /** Per token, the fraction of layers that agree (NaN where not routed in both). */
  readonly perToken: Float64Array;
  /** |δ| of the compared tokens where every layer agrees, and where some layer differs. */
  readonly allAgree: DeltaGroup;
  readonly someDiffer: DeltaGroup;
}

function sameSet(x: readonly number[], y: readonly number[]): boolean {
  if (x.length !== y.length) return false;
  const s = new Set(x);
  return y.every((e) => s.has(e));
}

/**
 * Token × layer agreement of arrays `a` and `b` (the same experts chosen, in any order), and |δ|
 * (`delta`, NaN where not compared, as `computeMismatch` gives it) split by whether every layer
 * of the token agrees.
 */
export function compareRouting(
  a: RoutingArray,
  b: RoutingArray,
  delta: ArrayLike<number>,
): RoutingComparison {
  const n = delta.length;
  const perToken = new Float64Array(n).fill(Number.NaN);
  const layers = Math.max(a.layers, b.layers);
  const layerAgree = new Array<number>(layers).fill(0);
  const layerSeen = new Array<number>(layers).fill(0);
  let tokens = 0;
  let cells = 0;
  let agreeing = 0;
  const sums = { agree: [0, 0], differ: [0, 0] };
  for (let k = 0; k < n; k++) {
    const x = a.at(k);
    const y = b.at(k);
    if (!x || !y) continue;
    tokens += 1;
    let same = 0;
    const depth = Math.max(x.length, y.length);
    for (let l = 0; l < depth; l++) {
      const isSame = sameSet(x[l] ?? [], y[l] ?? []);
      layerSeen[l] = (layerSeen[l] ?? 0) + 1;
      if (isSame) layerAgree[l] = (layerAgree[l] ?? 0) + 1;
      same += isSame ? 1 : 0;
    }
    cells += depth;
    agreeing += same;
    perToken[k] = depth === 0 ? Number.NaN : same / depth;
    const d = delta[k] as number;
    if (Number.isNaN(d)) continue;
    const bucket = same === depth ? sums.agree : sums.differ;
    bucket[0] = (bucket[0] as number) + 1;
    bucket[1] = (bucket[1] as number) + Math.abs(d);
  }
  const group = ([count, sum]: number[]) => ({
    tokens: count as number,
    meanAbsDelta: count === 0 ? 0 : (sum as number) / (count as number),
  });
  return {
    names: [a.name, b.name],
    tokens,
    cells,
    agreeing,
    perLayer: layerAgree.map((c, l) => (layerSeen[l] ? c / (layerSeen[l] as number) : 0)),
    perToken,
    allAgree: group(sums.agree),
    someDiffer: group(sums.differ),
  };
}

/** What the mismatch view says about routing: nothing recorded, one array, or a comparison. */
export type RoutingView =
  | { readonly kind: "none"; readonly problems: readonly string[] }
  | {
      readonly kind: "one";
      readonly array: RoutingArray;
      readonly missing: string;
      readonly problems: readonly string[];
    }
  | {
      readonly kind: "two";
      readonly arrays: readonly [RoutingArray, RoutingArray];
      readonly comparison: RoutingComparison;
      readonly problems: readonly string[];
    };

/** The routing of `t` against the mismatch's δ: compared when two arrays are recorded. */
export function routingView(t: Trajectory, delta: ArrayLike<number>): RoutingView {
  const { arrays, problems } = routingArraysOf(t);
  const [a, b] = arrays;
  if (!a) return { kind: "none", problems };
  if (!b) {
    const missing =
      "one routing array only: agreement needs a second one, the trainer's (routing replay, e.g. a train_routed_experts array beside it); the token details show each token's experts";
    return { kind: "one", array: a, missing, problems };
  }
  return { kind: "two", arrays: [a, b], comparison: compareRouting(a, b, delta), problems };
}

/** The layers of token `k` where the two arrays chose different experts, with both choices. */
export function routingDiffersAt(
  a: RoutingArray,
  b: RoutingArray,
  k: number,
): { layer: number; a: readonly number[]; b: readonly number[] }[] | undefined {
  const x = a.at(k);
  const y = b.at(k);
  if (!x || !y) return undefined;
  const out: { layer: number; a: readonly number[]; b: readonly number[] }[] = [];
  for (let l = 0; l < Math.max(x.length, y.length); l++) {
    const xs = x[l] ?? [];
    const ys = y[l] ?? [];
    if (!sameSet(xs, ys)) out.push({ layer: l, a: xs, b: ys });
  }
  return out;
}
