// The browser's whole-file drift scan as a user meets it, next to the native HF tokenizer doing the
// same check as a whole process on the same file, in the same run, on the CLI bench's corpus
// (bench/driftCorpus.ts: by default the hard one, CJK, emoji, whitespace and digit runs mixed
// into real prose, code and JSON). The app is the production build served by the real CLI
// (`vite build`, then `rollout-lens view FILE --no-open`), driven by Playwright on the e2e browser.
// Per round it prints: native's whole process (read, parse, decodeBatch, encodeBatch, compare: bench/nativeDriftCheckRows.mjs in its own Node process); the
// browser's scan from the click on "Check drift" to the first frame showing the summary (a fresh
// page each round; the scan pool's workers start and load the tokenizer while the file's table is
// open, before the click, as for a user reading the table: DRIFT_BROWSER_IDLE_MS=0 clicks as soon
// as the button is enabled, so what of that is unfinished counts); the ratio native time /
// browser time (target >= 3.5x); the main thread's work during the scan (longest task and worst
// frame gap, target <= 50 ms); and the verdicts compared row by row (the rows the browser's
// "drifted" filter exports against the rows native found drifted; any difference throws). A last,
// traced scan splits the main thread's tasks into wall clock and CPU time.
// DRIFT_BENCH_MB sets the corpus's decoded text (default 20), DRIFT_BROWSER_ROUNDS the rounds
// (default 2; 0 runs the traced scan only), DRIFT_BROWSER_PORT the server's port (default 4431),
// DRIFT_BROWSER_CORPUS a corpus file to keep and reuse (written there when missing),
// DRIFT_BROWSER_BUILD=0 serves the dist/ of an earlier build, DRIFT_BROWSER_PROFILE=1 samples
// every thread's functions in the traced scan, DRIFT_BROWSER_TRACE=FILE keeps its trace.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { resolveTokenizerDir } from "../server/tokenizers/loadTokenizer";
import { launchBenchBrowser, type ThreadWork, threadWork } from "./browserFrames";
import { describeCorpus, isHardCorpus, writeRealTextCorpus } from "./driftCorpus";

const TOKENIZER = "qwen3";
const TARGET_BYTES = Number(process.env.DRIFT_BENCH_MB ?? 20) * 1e6;
const ROUNDS = Number(process.env.DRIFT_BROWSER_ROUNDS ?? 2);
const PORT = Number(process.env.DRIFT_BROWSER_PORT ?? 4431);
const BUILD_TIMEOUT_MS = 10 * 60_000;
const SERVER_TIMEOUT_MS = 2 * 60_000;
const NATIVE_TIMEOUT_MS = 10 * 60_000;
const INDEX_TIMEOUT_MS = 5 * 60_000;
const SCAN_TIMEOUT_MS = 10 * 60_000;
const FRAME_TARGET_MS = 50;
/**
 * The idle page's frame loop before the click (ms). DRIFT_BROWSER_IDLE_MS=0 clicks as soon as
 * "Check drift" is enabled: what is still readying the scan pool then counts in click -> summary.
 */
const IDLE_BASELINE_MS = Number(process.env.DRIFT_BROWSER_IDLE_MS ?? 2000);

const tokenizerJson = () => join(resolveTokenizerDir(TOKENIZER), "tokenizer.json");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Corpus {
  readonly path: string;
  /** Each line's trajectory id, in file order. */
  readonly ids: readonly string[];
}

/**
 * Writes the benchmark corpus: the CLI bench's corpus of diverse real text (prose, code and JSON
 * from node_modules, bench/driftCorpus.ts), slime lines of Qwen3 tokens, until the text reaches
 * `targetBytes`. Slime names each trajectory after its line (`L1`, `L2`, ...).
 */
async function writeCorpus(path: string, targetBytes: number): Promise<Corpus> {
  if (existsSync(path)) {
    // DRIFT_BROWSER_CORPUS names a corpus an earlier run wrote (the same seed writes the same file).
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "").length;
    console.log(`browser corpus: ${path} as an earlier run wrote it, ${lines} trajectories`);
    return { path, ids: Array.from({ length: lines }, (_, k) => `L${k + 1}`) };
  }
  const native = NativeTokenizer.fromFile(tokenizerJson());
  const made = await writeRealTextCorpus(path, native, {
    targetBytes,
    seed: 15,
    driftRate: 0.02,
    hard: isHardCorpus(),
  });
  console.log(`browser corpus: ${describeCorpus(made)}`);
  const ids = Array.from({ length: made.trajectories }, (_, k) => `L${k + 1}`);
  return { path, ids };
}

/** A started child process and how to stop it (SIGTERM, then SIGKILL after 5 s). */
interface Running {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

function track(child: ChildProcess): Running {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The production build of the app, into dist/ (what `rollout-lens view` serves). */
function buildApp(): void {
  if (process.env.DRIFT_BROWSER_BUILD === "0") {
    console.log("DRIFT_BROWSER_BUILD=0: serving the dist/ an earlier build left");
    return;
  }
  execFileSync("npx", ["vite", "build", "--logLevel", "error"], {
    stdio: "inherit",
    timeout: BUILD_TIMEOUT_MS,
  });
}

/** `rollout-lens view FILE --no-open`: resolves with the URL it prints once listening. */
async function startView(file: string, dataDir: string): Promise<{ url: string; server: Running }> {
  const child = spawn(
    process.execPath,
    ["bin/rollout-lens.mjs", "view", file, "--no-open", "--port", String(PORT), "--data", dataDir],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const server = track(child);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`rollout-lens view printed no URL in ${SERVER_TIMEOUT_MS} ms`)),
        SERVER_TIMEOUT_MS,
      );
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = /Open (http\S+)/.exec(out)?.[1];
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`rollout-lens view exited with ${code} (port ${PORT} in use?)`));
      });
    });
    return { url, server };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

interface NativeRun {
  readonly ms: number;
  readonly trajectories: number;
  readonly drifted: readonly number[];
  /** Milliseconds per phase inside the process (tokenizer, readParse, decode, encode, compare). */
  readonly phases: Readonly<Record<string, number>>;
}

/** bench/nativeDriftCheckRows.mjs on the file, timed from spawn to exit. */
async function runNative(file: string): Promise<NativeRun> {
  const start = performance.now();
  const child = spawn(process.execPath, ["bench/nativeDriftCheckRows.mjs", file, tokenizerJson()], {
    stdio: ["ignore", "pipe", "inherit"],
    timeout: NATIVE_TIMEOUT_MS,
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(`native drift check exited with ${code}`);
  return { ms, ...(JSON.parse(out) as Omit<NativeRun, "ms">) };
}

const count = (n: number) => n.toLocaleString("en-US");
const phaseList = (phases: Readonly<Record<string, number>>) =>
  Object.entries(phases)
    .map(([name, ms]) => `${name} ${seconds(ms)}`)
    .join(", ");

/** Opens the file's table and waits until it is indexed and "Check drift" can start. */
async function openIndexed(browser: Browser, url: string, rows: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  const all = new RegExp(`^${count(rows)} / ${count(rows)} trajectories$`);
  await page
    .getByTestId("row-count")
    .filter({ hasText: all })
    .waitFor({ timeout: INDEX_TIMEOUT_MS });
  await page.waitForFunction(
    () => {
      const check = [...document.querySelectorAll("button")].find(
        (b) => b.textContent === "Check drift",
      );
      return check !== undefined && !check.disabled;
    },
    undefined,
    { timeout: INDEX_TIMEOUT_MS },
  );
  return page;
}

/**
 * The "Check drift" button, found before anything is timed or traced: Playwright's role query
 * walks the page's accessibility tree on the main thread (150-190 ms of CPU on the indexed table).
 */
async function checkDriftButton(page: Page) {
  const button = await page.getByRole("button", { name: "Check drift" }).elementHandle();
  if (!button) throw new Error('no "Check drift" button on the page');
  return button;
}

/** A main-thread task over 50 ms: its start after the click and its duration (ms). */
interface LongTask {
  readonly at: number;
  readonly ms: number;
}

interface ScanProbe {
  /** Click to the first animation frame with the summary in the page (ms). */
  readonly ms: number;
  /** Main-thread tasks over 50 ms during the scan (PerformanceObserver "longtask") (click to summary). */
  readonly longTasks: readonly LongTask[];
  /** Gaps between consecutive animation frames during the scan (ms). */
  readonly worstFrameGap: number;
  readonly frames: number;
  /** The worst gap of the same frame loop on the idle page before the click: this machine's floor. */
  readonly idleWorstFrameGap: number;
}

// Installed in the page as source text: tsx's named-function helper does not exist there.
const PROBE = `(() => {
  const probe = { t0: 0, t1: 0, longTasks: [], gaps: [], idleGaps: [] };
  window.__driftProbe = probe;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (probe.t0 > 0 && e.startTime >= probe.t0) probe.longTasks.push({ at: e.startTime - probe.t0, ms: e.duration });
    }
  });
  observer.observe({ type: "longtask" });
  document.addEventListener("click", () => { probe.t0 = performance.now(); }, { capture: true, once: true });
  let last = performance.now();
  function tick(now) {
    if (probe.t0 > 0) probe.gaps.push(now - Math.max(last, probe.t0));
    else probe.idleGaps.push(now - last);
    last = now;
    if (probe.t0 > 0 && document.querySelector('[data-testid="file-drift-summary"]')) {
      probe.t1 = now;
      // Long tasks ending before this frame reach the observer on its next callback.
      setTimeout(() => observer.disconnect(), 200);
      return;
    }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})()`;

/**
 * Clicks "Check drift" and times it to the first frame showing the summary, in the page: a
 * requestAnimationFrame loop marks frame gaps and looks for the summary once a frame, and a
 * long-task observer records main-thread tasks over 50 ms between click and summary. The same loop
 * runs for 2 s on the idle page first: the frame-gap floor of this machine.
 */
async function timeScan(page: Page): Promise<ScanProbe> {
  const button = await checkDriftButton(page);
  await page.evaluate(PROBE);
  await page.waitForTimeout(IDLE_BASELINE_MS);
  await button.click();
  await page.getByTestId("file-drift-summary").waitFor({ timeout: SCAN_TIMEOUT_MS });
  // A function, not a string: a string predicate is polled through eval, which the app's CSP refuses.
  await page.waitForFunction(
    () => (window as unknown as { __driftProbe: { t1: number } }).__driftProbe.t1 > 0,
  );
  await page.waitForTimeout(300);
  return page.evaluate(() => {
    const p = (
      window as unknown as {
        __driftProbe: {
          t0: number;
          t1: number;
          longTasks: LongTask[];
          gaps: number[];
          idleGaps: number[];
        };
      }
    ).__driftProbe;
    return {
      ms: p.t1 - p.t0,
      longTasks: p.longTasks,
      worstFrameGap: Math.max(0, ...p.gaps),
      frames: p.gaps.length,
      idleWorstFrameGap: Math.max(0, ...p.idleGaps),
    };
  });
}

/** "D of N trajectories drifted" from the summary. */
async function summaryCounts(page: Page): Promise<{ drifted: number; checked: number }> {
  const text = await page.getByTestId("file-drift-summary").innerText();
  const m = /([\d,]+) of ([\d,]+) trajectories drifted/.exec(text);
  if (!m) throw new Error(`drift summary not understood: ${text}`);
  const n = (s: string | undefined) => Number((s ?? "").replaceAll(",", ""));
  return { drifted: n(m[1]), checked: n(m[2]) };
}

/** The ids of the rows the page calls drifted: its "drifted" filter, exported as rollout-lens/v1. */
async function browserDriftedIds(page: Page, drifted: number, rows: number): Promise<string[]> {
  await page.getByRole("button", { name: "drifted", exact: true }).click();
  const shown = new RegExp(`^${count(drifted)} / ${count(rows)} trajectories$`);
  await page.getByTestId("row-count").filter({ hasText: shown }).waitFor({ timeout: 60_000 });
  if (drifted === 0) return [];
  await page.getByLabel("export format").selectOption("rollout-lens/v1");
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 120_000 }),
    page.getByRole("button", { name: `export ${count(drifted)} as JSONL` }).click(),
  ]);
  const text = readFileSync(await download.path(), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => String((JSON.parse(line) as { id: unknown }).id));
}

/** Throws unless both sides read every row and call the same rows drifted; names the first few. */
function compareVerdicts(corpus: Corpus, native: NativeRun, browserIds: readonly string[]): void {
  const nativeIds = new Set(native.drifted.map((i) => corpus.ids[i]));
  const browser = new Set(browserIds);
  const onlyNative = [...nativeIds].filter((id) => id !== undefined && !browser.has(id));
  const onlyBrowser = [...browser].filter((id) => !nativeIds.has(id));
  if (native.trajectories !== corpus.ids.length || onlyNative.length + onlyBrowser.length > 0) {
    throw new Error(
      `verdicts differ: native read ${native.trajectories} of ${corpus.ids.length} rows; ` +
        `drifted only natively: ${onlyNative.length} (${onlyNative.slice(0, 5).join(", ")}); ` +
        `drifted only in the browser: ${onlyBrowser.length} (${onlyBrowser.slice(0, 5).join(", ")})`,
    );
  }
}

interface Round {
  readonly nativeMs: number;
  readonly browserMs: number;
  readonly longestTask: number;
  readonly worstFrameGap: number;
}

async function round(n: number, browser: Browser, url: string, corpus: Corpus): Promise<Round> {
  const native = await runNative(corpus.path);
  const page = await openIndexed(browser, url, corpus.ids.length);
  try {
    const scan = await timeScan(page);
    const counts = await summaryCounts(page);
    const path = await page
      .getByTestId("drift-path")
      .innerText()
      .catch(() => "path not shown");
    const tokenizer = await page
      .getByLabel("tokenizer")
      .evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent ?? "");
    if (!tokenizer.endsWith(TOKENIZER)) {
      throw new Error(
        `the browser scanned with tokenizer "${tokenizer}", native with ${TOKENIZER}`,
      );
    }
    if (counts.checked !== corpus.ids.length) {
      throw new Error(`the browser checked ${counts.checked} of ${corpus.ids.length} rows`);
    }
    compareVerdicts(
      corpus,
      native,
      await browserDriftedIds(page, counts.drifted, corpus.ids.length),
    );
    const longestTask = Math.max(0, ...scan.longTasks.map((t) => t.ms));
    const tasks = scan.longTasks.map((t) => `${t.ms.toFixed(0)} ms at +${seconds(t.at)}`);
    const ratio = native.ms / scan.ms;
    console.log(
      `round ${n}: native whole process ${seconds(native.ms)} (${phaseList(native.phases)}); ` +
        "browser click -> summary " +
        `${seconds(scan.ms)} (tokenizer ${tokenizer}, ${path}); ratio native/browser ` +
        `${ratio.toFixed(2)}x (target >= 3.5x: ${ratio >= 3.5 ? "met" : "NOT met"}); main thread: ` +
        `${scan.longTasks.length} long tasks (${tasks.join(", ") || "none"}), worst frame gap ` +
        `${scan.worstFrameGap.toFixed(0)} ms over ${scan.frames} frames (idle page before the click: ` +
        `${scan.idleWorstFrameGap.toFixed(0)} ms) (target <= ` +
        `${FRAME_TARGET_MS} ms: ${Math.max(longestTask, scan.worstFrameGap) <= FRAME_TARGET_MS ? "met" : "NOT met"}); ` +
        `verdicts identical on all ${count(corpus.ids.length)} rows (${count(counts.drifted)} drifted); ` +
        `load average ${load()}`,
    );
    return {
      nativeMs: native.ms,
      browserMs: scan.ms,
      longestTask,
      worstFrameGap: scan.worstFrameGap,
    };
  } finally {
    await page.close();
  }
}

/** One thread of a traced scan: its tasks and CPU, and where its CPU went (top functions). */
function describeThread(t: ThreadWork, top: number): string {
  const fns = t.selfMs
    .slice(0, top)
    .map(([name, ms]) => `${name} ${ms.toFixed(0)}`)
    .join("; ");
  return (
    `${t.name} (${t.thread}): ${t.tasks} tasks from +${seconds(t.firstMs)} to ` +
    `+${seconds(t.lastMs)}, ${t.cpuMs.toFixed(0)} ms of CPU, longest task ` +
    `${t.longestWallMs.toFixed(0)} ms wall clock / ${t.longestCpuMs.toFixed(0)} ms CPU; ` +
    `self ms: ${fns || "no samples"}`
  );
}

/**
 * One more scan, traced (not timed against native: tracing slows it): every thread's tasks by
 * wall clock and by CPU time, and with DRIFT_BROWSER_PROFILE=1 the sampling profiler's top
 * functions per thread (where the page's and the workers' time goes). On a loaded machine a long
 * task's wall clock is mostly the thread waiting for a core; its CPU time is the work it did.
 * DRIFT_BROWSER_TRACE=FILE keeps the trace (open it in chrome://tracing or Perfetto).
 */
async function tracedScan(browser: Browser, url: string, rows: number): Promise<void> {
  const page = await openIndexed(browser, url, rows);
  const profile = process.env.DRIFT_BROWSER_PROFILE === "1";
  try {
    const button = await checkDriftButton(page);
    await browser.startTracing(page, {
      categories: [
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        ...(profile ? ["v8.execute", "disabled-by-default-v8.cpu_profiler"] : []),
      ],
    });
    const start = performance.now();
    await button.click();
    await page.getByTestId("file-drift-summary").waitFor({ timeout: SCAN_TIMEOUT_MS });
    const ms = performance.now() - start;
    const trace = await browser.stopTracing();
    if (process.env.DRIFT_BROWSER_TRACE) writeFileSync(process.env.DRIFT_BROWSER_TRACE, trace);
    const threads = threadWork(trace).sort((a, b) => b.cpuMs - a.cpuMs);
    const main = threads.find((t) => t.name === "CrRendererMain");
    console.log(
      `traced scan (${seconds(ms)}): most CPU in one main-thread task ` +
        `${(main?.longestCpuMs ?? 0).toFixed(0)} ms (target <= ${FRAME_TARGET_MS} ms: ` +
        `${(main?.longestCpuMs ?? 0) <= FRAME_TARGET_MS ? "met" : "NOT met"})`,
    );
    for (const t of threads)
      if (t.cpuMs >= 1) console.log(`  ${describeThread(t, profile ? 12 : 0)}`);
  } finally {
    await page.close();
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

function printSummary(rounds: readonly Round[]): void {
  const nativeMs = median(rounds.map((r) => r.nativeMs));
  const browserMs = median(rounds.map((r) => r.browserMs));
  const ratio = nativeMs / browserMs;
  console.log(
    `median of ${rounds.length} rounds: native whole process ${seconds(nativeMs)}, browser click ` +
      `-> summary ${seconds(browserMs)}, ratio ${ratio.toFixed(2)}x (target >= 3.5x: ` +
      `${ratio >= 3.5 ? "met" : "NOT met"}); longest main-thread task ` +
      `${Math.max(...rounds.map((r) => r.longestTask)).toFixed(0)} ms, worst frame gap ` +
      `${Math.max(...rounds.map((r) => r.worstFrameGap)).toFixed(0)} ms (target <= ${FRAME_TARGET_MS} ms)`,
  );
}

export default async function driftBrowserBench() {
  const work = mkdtempSync(join(tmpdir(), "rl-bench-drift-browser-"));
  const toStop: (() => Promise<void>)[] = [];
  try {
    console.log(`load average at start: ${load()} (1, 5, 15 min; this machine has 2 cores)`);
    const corpusPath = process.env.DRIFT_BROWSER_CORPUS ?? join(work, "corpus.jsonl");
    const corpus = await writeCorpus(corpusPath, TARGET_BYTES);
    buildApp();
    mkdirSync(join(work, "data"));
    const { url, server } = await startView(corpus.path, join(work, "data"));
    toStop.push(() => server.stop());
    const browser = await launchBenchBrowser();
    toStop.push(() => browser.close());
    const rounds: Round[] = [];
    for (let n = 1; n <= ROUNDS; n++) rounds.push(await round(n, browser, url, corpus));
    if (rounds.length > 0) printSummary(rounds);
    await tracedScan(browser, url, corpus.ids.length);
  } finally {
    for (const stop of toStop.reverse()) await stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}
