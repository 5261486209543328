import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StreamDelta } from "../../src/core/trajectory/streamDelta";
import { DELTA_WINDOW_MS, DeltaBatcher } from "./deltaBatcher";

const step = (id: number, tokens: number, top = false): StreamDelta => ({
  ids: [id],
  logprobs: [-id / 10],
  ...(top ? { topLogprobs: [[{ tokenId: id, logprob: -id / 10 }]] } : {}),
  text: `<${id}>`,
  tokens,
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("DeltaBatcher", () => {
  it("gathers the steps of a window into one delta, in order", () => {
    const sent: StreamDelta[] = [];
    const batcher = new DeltaBatcher((d) => sent.push(d));
    for (let i = 1; i <= 5; i++) batcher.add(step(i, i));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(DELTA_WINDOW_MS);
    batcher.add(step(6, 6));
    batcher.flush();
    expect(sent).toEqual([
      {
        ids: [1, 2, 3, 4, 5],
        logprobs: [-0.1, -0.2, -0.3, -0.4, -0.5],
        text: "<1><2><3><4><5>",
        tokens: 5,
      },
      { ids: [6], logprobs: [-0.6], text: "<6>", tokens: 6 },
    ]);
    // Nothing pending: a flush sends nothing, and no timer is left behind.
    batcher.flush();
    expect(sent).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps top-k aligned when it starts mid-window", () => {
    const sent: StreamDelta[] = [];
    const batcher = new DeltaBatcher((d) => sent.push(d));
    batcher.add(step(1, 1));
    batcher.add(step(2, 2, true));
    batcher.flush();
    expect(sent[0]?.topLogprobs).toEqual([null, [{ tokenId: 2, logprob: -0.2 }]]);
  });

  it("hands on each token once: 10,000 steps give 10,000 ids in all", () => {
    let ids = 0;
    let events = 0;
    const batcher = new DeltaBatcher((d) => {
      ids += d.ids.length;
      events++;
    });
    for (let i = 0; i < 10_000; i++) {
      batcher.add(step(i, i + 1));
      if (i % 100 === 99) vi.advanceTimersByTime(DELTA_WINDOW_MS);
    }
    batcher.flush();
    expect(ids).toBe(10_000);
    expect(events).toBe(100);
  });
});
