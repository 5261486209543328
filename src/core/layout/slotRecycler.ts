/**
 * Stable keys for the window of a virtualized list, chosen so that an element scrolling out of the
 * window is reused by one scrolling in: items that stay keep their slot, and the slots of items
 * that left go to the items that arrived. Keyed by slot, a list re-renders the same elements with
 * new content instead of unmounting some and mounting others, so scrolling creates (and leaves for
 * the garbage collector) almost nothing. The number of slots never exceeds the largest window.
 */
export class SlotRecycler {
  private slots = new Map<number, number>();
  private size = 0;

  /** Slot of each of `indices` (the items in the window now, distinct), in the same order. */
  assign(indices: readonly number[]): number[] {
    const previous = this.slots;
    const next = new Map<number, number>();
    const result: number[] = new Array(indices.length).fill(-1);
    const known = this.size;
    const taken = new Uint8Array(known);
    indices.forEach((index, i) => {
      const slot = previous.get(index);
      if (slot !== undefined) {
        result[i] = slot;
        taken[slot] = 1;
        next.set(index, slot);
      }
    });
    let free = 0;
    indices.forEach((index, i) => {
      if (result[i] !== -1) return;
      while (free < known && taken[free] === 1) free++;
      const slot = free < known ? free++ : this.size++;
      result[i] = slot;
      next.set(index, slot);
    });
    this.slots = next;
    return result;
  }
}

/**
 * Keys for a window whose items come in kinds (a list's header, token and card rows): each kind
 * recycles its own slots, so a slot only ever holds one kind of element.
 */
export class KindedSlotRecycler {
  private readonly byKind = new Map<number, SlotRecycler>();

  /** Key (`kind:slot`) of each of `indices`, whose kinds are `kinds` (same length and order). */
  keys(indices: readonly number[], kinds: readonly number[]): string[] {
    const keys: string[] = new Array(indices.length).fill("");
    for (const kind of new Set(kinds)) {
      let recycler = this.byKind.get(kind);
      if (!recycler) {
        recycler = new SlotRecycler();
        this.byKind.set(kind, recycler);
      }
      const at: number[] = [];
      kinds.forEach((k, i) => {
        if (k === kind) at.push(i);
      });
      const slots = recycler.assign(at.map((i) => indices[i] ?? 0));
      at.forEach((i, j) => {
        keys[i] = `${kind}:${slots[j]}`;
      });
    }
    // A kind that left the window entirely forgets its items, so they count as new when they return.
    for (const [kind, recycler] of this.byKind) if (!kinds.includes(kind)) recycler.assign([]);
    return keys;
  }
}
