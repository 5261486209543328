/*
 * One `GET {rangeUrl}?start=&end=` of the server's byte-range endpoint, for every worker that reads
 * a served file. The server caps the range reads in flight (`--max-range-reads`) and answers 429
 * with a Retry-After past it: the read waits that long and asks again, so a busy server slows a
 * scan down instead of failing it.
 */

/** How long one read keeps retrying a busy server before it fails (ms). */
export const RANGE_RETRY_BUDGET_MS = 120_000;
/** The longest single wait, whatever Retry-After says (ms). */
const MAX_WAIT_MS = 10_000;

export interface RangeFetchOptions {
  /** Waits between attempts (tests pass a fake). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly budgetMs?: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait a 429 asks for: Retry-After in seconds (1 s when absent or unreadable), capped. */
export function retryWaitMs(retryAfter: string | null): number {
  const seconds = retryAfter === null || retryAfter.trim() === "" ? Number.NaN : Number(retryAfter);
  const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
  return Math.min(MAX_WAIT_MS, ms);
}

/** Bytes [start, end) of served file `name`; throws with the server's reason on any other error. */
export async function fetchRange(
  rangeUrl: string,
  name: string,
  start: number,
  end: number,
  options: RangeFetchOptions = {},
): Promise<Uint8Array> {
  const sleep = options.sleep ?? realSleep;
  const budget = options.budgetMs ?? RANGE_RETRY_BUDGET_MS;
  let waited = 0;
  for (;;) {
    const res = await fetch(`${rangeUrl}?start=${start}&end=${end}`, { cache: "no-store" });
    if (res.ok) return new Uint8Array(await res.arrayBuffer());
    const reason = await reasonOf(res);
    if (res.status !== 429 || waited >= budget) {
      const gaveUp = res.status === 429 ? ` (still busy after ${Math.round(waited / 1000)} s)` : "";
      throw new Error(`${name} bytes ${start}-${end}: ${res.status} ${reason}${gaveUp}`);
    }
    const wait = retryWaitMs(res.headers.get("retry-after"));
    waited += wait;
    await sleep(wait);
  }
}

async function reasonOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body: unknown = JSON.parse(text);
    const error = (body as { error?: unknown } | null)?.error;
    if (typeof error === "string") return error;
  } catch {
    // not JSON: the text as it is
  }
  return text.slice(0, 500) || res.statusText;
}
