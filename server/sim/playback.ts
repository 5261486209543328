import type { SimContext } from "./context";
import type { FinishReason } from "./engine";
import { createWaker, type RunningItem } from "./registry";
import { ABORT_WHILE_RUNNING, type ItemTrace } from "./responses";

/** One observable moment of a call: an item aborted while queued, or an item's decode step. */
export type PlaybackEvent =
  | { readonly kind: "queued-abort"; readonly index: number }
  | {
      readonly kind: "step";
      readonly index: number;
      /** Output tokens produced so far. */
      readonly shown: number;
      readonly finish: FinishReason | null;
    };

/**
 * Plays precomputed traces out in time: `requestLatencyMs` queued (aborts there are "before
 * prefill"), then one token per item every `tokenLatencyMs`. Aborts via `/abort_request` or `signal`
 * cut an item at its current length. On exit, what was produced enters the prefix cache.
 */
export async function* playOut(
  ctx: SimContext,
  traces: readonly ItemTrace[],
  signal: AbortSignal,
): AsyncGenerator<PlaybackEvent> {
  const waker = createWaker();
  const running: RunningItem[] = traces.map((t) => ({
    rid: t.item.rid,
    isAborted: false,
    wake: waker.wake,
  }));
  const shown = traces.map(() => 0);
  const isPrefilled = traces.map(() => false);
  const handleAbort = () => {
    for (const item of running) item.isAborted = true;
    waker.wake();
  };
  for (const item of running) ctx.registry.add(item);
  signal.addEventListener("abort", handleAbort);
  if (signal.aborted) handleAbort();
  try {
    await waker.sleep(ctx.options.requestLatencyMs);
    const active = new Set<number>();
    for (const [index, item] of running.entries()) {
      if (item.isAborted) yield { kind: "queued-abort", index };
      else {
        isPrefilled[index] = true;
        active.add(index);
      }
    }
    while (active.size > 0) {
      for (const index of [...active]) {
        const trace = traces[index];
        const item = running[index];
        if (!trace || !item) continue;
        const length = trace.completion.outputIds.length;
        const count = shown[index] ?? 0;
        if (item.isAborted) {
          active.delete(index);
          yield { kind: "step", index, shown: count, finish: ABORT_WHILE_RUNNING };
          continue;
        }
        const next = Math.min(length, count + 1);
        shown[index] = next;
        const isDone = next >= length;
        if (isDone) active.delete(index);
        yield { kind: "step", index, shown: next, finish: isDone ? trace.completion.finish : null };
      }
      if (active.size > 0) await waker.sleep(ctx.options.tokenLatencyMs);
    }
  } finally {
    signal.removeEventListener("abort", handleAbort);
    for (const [index, item] of running.entries()) {
      ctx.registry.remove(item);
      const trace = traces[index];
      if (trace && isPrefilled[index]) {
        const output = trace.completion.outputIds.slice(0, shown[index] ?? 0);
        ctx.cache.insert([...trace.item.promptIds, ...output]);
      }
    }
  }
}
