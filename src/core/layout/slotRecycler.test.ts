import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KindedSlotRecycler, SlotRecycler } from "./slotRecycler";

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("SlotRecycler", () => {
  it("keeps the slot of items that stay and hands freed slots to items that arrive", () => {
    const recycler = new SlotRecycler();
    expect(recycler.assign([0, 1, 2, 3])).toEqual([0, 1, 2, 3]);
    // Scrolled down by two rows: 0 and 1 left, 4 and 5 reuse their slots.
    expect(recycler.assign([2, 3, 4, 5])).toEqual([2, 3, 0, 1]);
    // A jump far away: every slot is reused, none is added.
    expect(recycler.assign([900, 901, 902, 903])).toEqual([0, 1, 2, 3]);
  });

  it("grows only when the window grows, and assigning the same window twice changes nothing", () => {
    const recycler = new SlotRecycler();
    recycler.assign([10, 11]);
    expect(recycler.assign([10, 11, 12])).toEqual([0, 1, 2]);
    expect(recycler.assign([10, 11, 12])).toEqual([0, 1, 2]);
    expect(recycler.assign([11])).toEqual([1]);
    expect(recycler.assign([11, 12, 13])).toEqual([1, 0, 2]);
  });

  it("gives distinct slots, never more than the largest window, to any sequence of windows", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(500), fc.integer({ min: 0, max: 60 })), {
          minLength: 1,
          maxLength: 40,
        }),
        (windows) => {
          const recycler = new SlotRecycler();
          let largest = 0;
          let last = new Map<number, number>();
          for (const [start, length] of windows) {
            const indices = range(start, start + length);
            largest = Math.max(largest, length);
            const slots = recycler.assign(indices);
            expect(new Set(slots).size).toBe(slots.length);
            for (const slot of slots) expect(slot).toBeLessThan(largest);
            // Items that stay in the window keep their slot.
            indices.forEach((index, i) => {
              const before = last.get(index);
              if (before !== undefined) expect(slots[i]).toBe(before);
            });
            last = new Map(indices.map((index, i) => [index, slots[i] ?? -1]));
          }
        },
      ),
    );
  });
});

describe("KindedSlotRecycler", () => {
  it("recycles each kind's slots separately and keys are unique across kinds", () => {
    const recycler = new KindedSlotRecycler();
    expect(recycler.keys([0, 1, 2], [0, 1, 1])).toEqual(["0:0", "1:0", "1:1"]);
    // Row 0 (kind 0) left and row 3 (kind 1) arrived: it takes no kind-0 slot.
    expect(recycler.keys([1, 2, 3], [1, 1, 1])).toEqual(["1:0", "1:1", "1:2"]);
    expect(recycler.keys([2, 3, 4, 5], [1, 1, 0, 1])).toEqual(["1:1", "1:2", "0:0", "1:0"]);
  });

  it("keys stay unique, stay with items that stay, and never outnumber a kind's largest window", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat(300), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 4 })),
          { minLength: 1, maxLength: 30 },
        ),
        (windows) => {
          const recycler = new KindedSlotRecycler();
          // Each item's kind is fixed, as a row's is: derived from the item.
          const kindOf = (index: number, kinds: number) => (index * 7) % kinds;
          const largest = new Map<number, number>();
          let last = new Map<number, string>();
          for (const [start, length, kinds] of windows) {
            const indices = range(start, start + length);
            const rowKinds = indices.map((i) => kindOf(i, kinds));
            const keys = recycler.keys(indices, rowKinds);
            expect(new Set(keys).size).toBe(keys.length);
            for (const kind of new Set(rowKinds)) {
              const n = rowKinds.filter((k) => k === kind).length;
              largest.set(kind, Math.max(largest.get(kind) ?? 0, n));
            }
            keys.forEach((key, i) => {
              const [kind, slot] = key.split(":").map(Number);
              expect(kind).toBe(rowKinds[i]);
              expect(slot).toBeLessThan(largest.get(kind ?? -1) ?? 0);
              const before = last.get(indices[i] ?? -1);
              if (before?.startsWith(`${kind}:`)) expect(key).toBe(before);
            });
            last = new Map(indices.map((index, i) => [index, keys[i] ?? ""]));
          }
        },
      ),
    );
  });
});
