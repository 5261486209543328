/** One item of an in-flight `/generate` call, as `/abort_request` and `/flush_cache` see it. */
export interface RunningItem {
  readonly rid: string;
  isAborted: boolean;
  /** Wakes the call's sleeping playback so an abort takes effect at once. */
  readonly wake: () => void;
}

export interface Registry {
  add(item: RunningItem): void;
  remove(item: RunningItem): void;
  /** Aborts every item whose rid starts with `prefix` (SGLang's scheduler matches by prefix). */
  abortPrefix(prefix: string): number;
  abortAll(): number;
  readonly size: number;
}

/** The set of in-flight items; a flush is refused while it is not empty. */
export function createRegistry(): Registry {
  const items = new Set<RunningItem>();
  const abort = (match: (rid: string) => boolean) => {
    let count = 0;
    for (const item of items) {
      if (item.isAborted || !match(item.rid)) continue;
      item.isAborted = true;
      item.wake();
      count++;
    }
    return count;
  };
  return {
    add: (item) => void items.add(item),
    remove: (item) => void items.delete(item),
    abortPrefix: (prefix) => (prefix === "" ? 0 : abort((rid) => rid.startsWith(prefix))),
    abortAll: () => abort(() => true),
    get size() {
      return items.size;
    },
  };
}

export interface Waker {
  /** Resolves after `ms`, or earlier when `wake()` is called. */
  sleep(ms: number): Promise<void>;
  wake(): void;
}

/** An interruptible sleep shared by the items of one call. */
export function createWaker(): Waker {
  let pending: (() => void) | undefined;
  return {
    sleep(ms) {
      if (ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), ms);
        const done = () => {
          clearTimeout(timer);
          pending = undefined;
          resolve();
        };
        pending = done;
      });
    },
    wake() {
      pending?.();
    },
  };
}
