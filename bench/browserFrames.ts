import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "@playwright/test";
import { resolveE2eBrowser } from "../e2e/browser/resolveBrowser";

/*
 * What the browser benches share: a production build served by the real server, the e2e
 * Chromium, and main-thread work per frame read from a Chromium trace.
 */

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  /** Thread (CPU) time of the event, in microseconds: `dur` less the time the thread was off CPU. */
  readonly tdur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { readonly name?: string };
}

/** Garbage-collection pauses on the main thread (V8 and Blink's heap), as the trace names them. */
const GC_EVENTS = new Set(["MajorGC", "MinorGC", "V8.GC_MC_INCREMENTAL", "V8.GC_SCAVENGER"]);

export interface FrameWork {
  /** Main-thread work of the frame, wall-clock (ms). */
  readonly work: number;
  /** The CPU time of that work (ms): what is left once a busy machine's preemption is taken out. */
  readonly cpu: number;
  /** The part of it spent in garbage collection (ms). */
  readonly gc: number;
}

/**
 * Main-thread work per frame from a Chromium trace (ms): the top-level tasks of the page's main
 * thread, grouped by the animation frame they follow, and the garbage-collection pauses among
 * them. Unlike requestAnimationFrame deltas this is not rounded up to whole vsync intervals,
 * though CPU contention (and tracing itself) still stretches it.
 */
export function frameWork(path: string): FrameWork[] {
  const parsed: { traceEvents?: TraceEvent[] } | TraceEvent[] = JSON.parse(
    readFileSync(path, "utf8"),
  );
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mains = new Set(
    events
      .filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain")
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const frameCount = new Map<string, number>();
  for (const e of events) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.name === "FireAnimationFrame" && mains.has(thread))
      frameCount.set(thread, (frameCount.get(thread) ?? 0) + 1);
  }
  const main = [...frameCount.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === "X");
  const frames = onMain.filter((e) => e.name === "FireAnimationFrame").map((e) => e.ts);
  frames.sort((a, b) => a - b);
  const work = frames.slice(0, -1).map(() => 0);
  const gc = frames.slice(0, -1).map(() => 0);
  const cpu = frames.slice(0, -1).map(() => 0);
  // Frame i is everything from its animation frame callback up to the next one.
  const frameOf = (ts: number) => {
    let lo = 0;
    let hi = frames.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((frames[mid] ?? 0) <= ts) lo = mid;
      else hi = mid - 1;
    }
    return ts >= (frames[0] ?? 0) && lo < work.length ? lo : -1;
  };
  for (const event of onMain) {
    if (event.dur === undefined) continue;
    const frame = frameOf(event.ts);
    if (frame < 0) continue;
    if (event.name === "RunTask") {
      work[frame] = (work[frame] ?? 0) + event.dur / 1000;
      cpu[frame] = (cpu[frame] ?? 0) + (event.tdur ?? event.dur) / 1000;
    } else if (GC_EVENTS.has(event.name)) gc[frame] = (gc[frame] ?? 0) + event.dur / 1000;
  }
  return work.map((w, i) => ({ work: w, cpu: cpu[i] ?? w, gc: Math.min(w, gc[i] ?? 0) }));
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

export function summary(frames: readonly FrameWork[]) {
  const sorted = frames.map((f) => f.work).sort((a, b) => a - b);
  const withoutGc = frames.map((f) => f.work - f.gc).sort((a, b) => a - b);
  const cpu = frames.map((f) => f.cpu).sort((a, b) => a - b);
  return {
    cpuMedian: quantile(cpu, 0.5),
    cpuP99: quantile(cpu, 0.99),
    cpuWorst: cpu.at(-1) ?? Number.NaN,
    cpuOver16: cpu.filter((w) => w > 16).length,
    frames: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    worst: sorted.at(-1) ?? Number.NaN,
    over16: sorted.filter((w) => w > 16).length,
    gcFrames: frames.filter((f) => f.gc >= 1).length,
    worstWithoutGc: withoutGc.at(-1) ?? Number.NaN,
  };
}

/** Builds the app and starts `rollout-lens serve` on `port` with `files` listed. */
export async function startServer(
  port: number,
  files: readonly string[] = [],
): Promise<ChildProcess> {
  execFileSync("npx", ["vite", "build", "--logLevel", "error"], { stdio: "inherit" });
  const data = mkdtempSync(join(tmpdir(), "rl-bench-view-"));
  const child = spawn(
    process.execPath,
    ["bin/rollout-lens.mjs", "serve", ...files, "--port", String(port), "--data", data],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes(`:${port}`)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  return child;
}

/** The e2e tests' Chromium (CHROMIUM_PATH, system, Playwright's, @sparticuz/chromium). */
export async function launchBenchBrowser(): Promise<Browser> {
  const resolved = await resolveE2eBrowser();
  return chromium.launch({
    executablePath: resolved.executablePath,
    env: { ...process.env, ...resolved.env },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
    ],
  });
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url?: string;
    readonly lineNumber?: number;
    readonly columnNumber?: number;
  };
}

interface ProfileEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly id?: string;
  readonly args?: {
    readonly name?: string;
    readonly data?: {
      readonly startTime?: number;
      readonly cpuProfile?: { readonly nodes?: ProfileNode[]; readonly samples?: number[] };
      readonly timeDeltas?: number[];
    };
  };
}

/** One thread's work in a trace: its name, its top-level tasks and its CPU profile by function. */
export interface ThreadWork {
  readonly thread: string;
  readonly name: string;
  readonly tasks: number;
  /** Sum and longest of its top-level tasks, wall clock and CPU (ms). */
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly longestWallMs: number;
  readonly longestCpuMs: number;
  /** First and last task start, ms after the trace's first task on any thread. */
  readonly firstMs: number;
  readonly lastMs: number;
  /** Self time per function (`name url:line:col`) from the sampling profiler (ms), most first. */
  readonly selfMs: readonly (readonly [string, number])[];
}

const threadKey = (e: { pid: number; tid: number }) => `${e.pid}:${e.tid}`;

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  if (url === undefined || url === "") return functionName || "(anonymous)";
  const file = url.split("/").at(-1) ?? "";
  return `${functionName || "(anonymous)"} ${file}:${(lineNumber ?? 0) + 1}:${(columnNumber ?? 0) + 1}`;
}

/** Self time by function of every sampled thread: ProfileChunk events merged per profile id. */
function profileSelfTime(events: readonly ProfileEvent[]): Map<string, Map<string, number>> {
  const nodes = new Map<string, Map<number, string>>();
  const byThread = new Map<string, Map<string, number>>();
  const threadOf = new Map<string, string>();
  for (const e of events) {
    if (e.ph !== "P" || e.id === undefined) continue;
    if (e.name === "Profile") threadOf.set(e.id, threadKey(e));
    if (e.name !== "ProfileChunk") continue;
    const thread = threadOf.get(e.id) ?? threadKey(e);
    const names = nodes.get(e.id) ?? new Map<number, string>();
    nodes.set(e.id, names);
    const profile = e.args?.data?.cpuProfile;
    for (const node of profile?.nodes ?? []) names.set(node.id, frameName(node));
    const deltas = e.args?.data?.timeDeltas ?? [];
    const self = byThread.get(thread) ?? new Map<string, number>();
    byThread.set(thread, self);
    (profile?.samples ?? []).forEach((sample, k) => {
      // A sample's time is the delta to the next one; the last one's is taken as its own delta.
      const us = Math.max(0, deltas[k + 1] ?? deltas[k] ?? 0);
      const name = names.get(sample) ?? `node ${sample}`;
      self.set(name, (self.get(name) ?? 0) + us / 1000);
    });
  }
  return byThread;
}

/**
 * Every thread's work in a Chromium trace (with `disabled-by-default-v8.cpu_profiler` for the
 * self times): the page's main thread (CrRendererMain) and its workers (DedicatedWorker thread).
 */
export function threadWork(trace: Buffer | string): ThreadWork[] {
  const parsed: { traceEvents?: ProfileEvent[] } | ProfileEvent[] = JSON.parse(trace.toString());
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === "M" && e.name === "thread_name") names.set(threadKey(e), e.args?.name ?? "");
  }
  const tasks = new Map<string, ProfileEvent[]>();
  for (const e of events) {
    const name = names.get(threadKey(e)) ?? "";
    if (e.ph !== "X" || e.name !== "RunTask") continue;
    if (name !== "CrRendererMain" && !name.startsWith("DedicatedWorker")) continue;
    const list = tasks.get(threadKey(e)) ?? [];
    tasks.set(threadKey(e), list);
    list.push(e);
  }
  const t0 = Math.min(...[...tasks.values()].flat().map((e) => e.ts));
  const self = profileSelfTime(events);
  return [...tasks.entries()].map(([thread, list]) => ({
    thread,
    name: names.get(thread) ?? "",
    tasks: list.length,
    wallMs: list.reduce((a, e) => a + (e.dur ?? 0), 0) / 1000,
    cpuMs: list.reduce((a, e) => a + (e.tdur ?? e.dur ?? 0), 0) / 1000,
    longestWallMs: Math.max(0, ...list.map((e) => e.dur ?? 0)) / 1000,
    longestCpuMs: Math.max(0, ...list.map((e) => e.tdur ?? e.dur ?? 0)) / 1000,
    firstMs: (Math.min(...list.map((e) => e.ts)) - t0) / 1000,
    lastMs: (Math.max(...list.map((e) => e.ts + (e.dur ?? 0))) - t0) / 1000,
    selfMs: [...(self.get(thread) ?? new Map<string, number>()).entries()].sort(
      (a, b) => b[1] - a[1],
    ),
  }));
}
