/** A counting semaphore with a FIFO queue; `acquire` honours an AbortSignal while waiting. */
export class Semaphore {
  #free: number;
  readonly #waiters: (() => void)[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`semaphore capacity must be a positive integer, got ${capacity}`);
    }
    this.#free = capacity;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Takes a free slot synchronously; false when none is free (then call `acquire`). */
  tryAcquire(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }

  /** Resolves once a slot is held; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiters.indexOf(grant);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#waiters.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}
