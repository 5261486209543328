import { describe, expect, it } from "vitest";
import { seededRandom } from "../random";
import { SamplePool } from "./chartSample";
import { type MismatchToken, SCATTER_POINTS } from "./mismatchCharts";

interface Offered {
  readonly priority: number;
  readonly row: number;
  readonly token: number;
}

/** Offers with priorities drawn from `levels` values (few levels: many ties at any cut-off). */
function offers(count: number, levels: number, seed: number): Offered[] {
  const rand = seededRandom(seed);
  // Token indices are distinct, so (row, token) names one offer.
  return Array.from({ length: count }, (_, i) => ({
    priority: Math.floor(rand() * levels),
    row: Math.floor(rand() * 50),
    token: (i * 7919) % 100_003,
  }));
}

/** The pool filled with `list` in order until it asks to be cut, then cut once. */
function cutOnce(list: readonly Offered[]): { cut: number; kept: MismatchToken[] } {
  const pool = new SamplePool();
  let full = false;
  for (const [i, o] of list.entries()) {
    full = pool.push(o.priority, o.row, i, o.token, i, 0, 0, o.priority / 1000);
    if (full) break;
  }
  expect(full).toBe(true);
  const cut = pool.cut();
  const kept: MismatchToken[] = [];
  pool.drainInto(kept);
  return { cut, kept };
}

/** The first SCATTER_POINTS of `list` in the sample's order: priority, then row, then token. */
function reference(list: readonly Offered[]): Offered[] {
  const order = (x: Offered, y: Offered) =>
    x.priority - y.priority || x.row - y.row || x.token - y.token;
  return [...list].sort(order).slice(0, SCATTER_POINTS);
}

const key = (t: { row: number; token: number; priority?: number }) => `${t.row}:${t.token}`;

describe("the sample's pool, cut", () => {
  for (const [name, levels] of [
    ["distinct priorities", 2 ** 32],
    ["many ties at the cut-off", 7],
    ["every priority equal", 1],
  ] as const) {
    it(`keeps the first SCATTER_POINTS in the sample's order (${name})`, () => {
      // The pool holds 2 × SCATTER_POINTS before it asks to be cut.
      const list = offers(2 * SCATTER_POINTS, levels, levels % 1000);
      const { cut, kept } = cutOnce(list);
      const want = reference(list);
      expect(cut).toBe(want[want.length - 1]?.priority);
      expect(kept).toHaveLength(SCATTER_POINTS);
      expect(new Set(kept.map(key))).toEqual(new Set(want.map(key)));
      // Each kept token keeps its own columns (the line is the offer's index here).
      for (const t of kept) expect(key(list[t.line] as Offered)).toBe(key(t));
    });
  }
});
