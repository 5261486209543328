import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FuzzOutcome } from "./containers";

/*
 * Seeded mutation fuzzing of the file containers through their real readers (docs/format.md
 * "Bounded reading"). Cases run one after another in a child process (fuzzRunner.ts) with a
 * capped heap; the harness gives each case a time budget and watches the child's memory, so a
 * case that hangs a reader, kills the process or grows it is caught, named by its seed, and the
 * child restarted for the next case. Every case is reproducible from (container, seed file, seed).
 */

export interface FuzzCase {
  readonly container: string;
  /** Which of the container's seed files is mutated. */
  readonly seedIndex: number;
  /** The mutation's seed (mutations.ts). */
  readonly seed: number;
  /** A kept regression file read as it is instead of a mutation. */
  readonly file?: string;
}

export interface FuzzResult {
  readonly case: FuzzCase;
  /** `hang`: past the time budget; `death`: the child exited or was killed by the case. */
  readonly kind: FuzzOutcome["kind"] | "hang" | "death";
  readonly messages: readonly string[];
  readonly ms: number;
  readonly rss: number;
}

export interface FuzzOptions {
  /** Time one case may take (the child is killed and restarted past it). */
  readonly caseBudgetMs: number;
  /** The child's V8 heap (`--max-old-space-size`). */
  readonly heapMb: number;
  /** The readers' own time budget in the child (ROLLOUT_LENS_READ_BUDGET_MS), below caseBudgetMs. */
  readonly readBudgetMs: number;
}

interface Child {
  readonly process: ChildProcess;
  readonly replies: AsyncIterator<string>;
}

function startChild(options: FuzzOptions): Child {
  const tsx = createRequire(import.meta.url).resolve("tsx/esm");
  const runner = fileURLToPath(new URL("./fuzzRunner.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${options.heapMb}`, "--import", tsx, runner],
    {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ROLLOUT_LENS_READ_BUDGET_MS: String(options.readBudgetMs) },
    },
  );
  child.stderr?.resume();
  const replies = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  return { process: child, replies };
}

/** The next reply of the child, or why there is none within `ms`. */
async function replyWithin(child: Child, ms: number): Promise<string | "hang" | "death"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"hang">((resolve) => {
    timer = setTimeout(() => resolve("hang"), ms);
  });
  const next = child.replies.next().then((r) => (r.done ? ("death" as const) : r.value));
  const winner = await Promise.race([next, timeout]);
  clearTimeout(timer);
  return winner;
}

/** Runs `cases` in order and returns one result per case. */
export async function runFuzzCases(
  cases: readonly FuzzCase[],
  options: FuzzOptions,
): Promise<FuzzResult[]> {
  const results: FuzzResult[] = [];
  let child: Child | undefined;
  try {
    for (const c of cases) {
      child ??= startChild(options);
      child.process.stdin?.write(`${JSON.stringify(c)}\n`);
      // The first case also waits for the child to start (tsx compiles the readers).
      const budget = results.length === 0 ? options.caseBudgetMs + 30_000 : options.caseBudgetMs;
      const reply = await replyWithin(child, budget);
      if (reply === "hang" || reply === "death") {
        child.process.kill("SIGKILL");
        child = undefined;
        results.push({ case: c, kind: reply, messages: [], ms: budget, rss: 0 });
        continue;
      }
      const parsed = JSON.parse(reply) as FuzzOutcome & { ms: number; rss: number };
      results.push({ case: c, ...parsed });
    }
  } finally {
    child?.process.stdin?.end();
    child?.process.kill();
  }
  return results;
}

/** Case counts by container and outcome, for the run's printout. */
export function fuzzSummary(results: readonly FuzzResult[]): string {
  const counts = new Map<string, Map<string, number>>();
  for (const r of results) {
    const own = counts.get(r.case.container) ?? new Map<string, number>();
    own.set(r.kind, (own.get(r.kind) ?? 0) + 1);
    counts.set(r.case.container, own);
  }
  const maxRss = Math.max(0, ...results.map((r) => r.rss));
  const parts = [...counts].map(
    ([name, own]) => `${name}: ${[...own].map(([kind, n]) => `${n} ${kind}`).join(", ")}`,
  );
  return `fuzz: ${results.length} cases (${parts.join("; ")}), max RSS ${Math.round(maxRss / 2 ** 20)} MiB`;
}
