import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { setPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// With 32 streaming episodes, file range GETs went from p50 1.8 s to 92–302 s. This
// bench serves a 64 MiB file next to live episodes and reads 1 MiB ranges of it (the size the
// browser's drift scan asks for) two at a time, first idle, then with 32 streaming episodes kept
// in flight (each watched over its event stream, as the app does), in the same run. The server
// and the simulator are child processes, as in use; the simulator decodes a token every 10 ms per
// request (a real GPU's pace) and streams deltas (`--incremental-streaming-output`). The simulator
// and the episodes' watchers stand for other machines (a GPU server, browsers): they run at a
// lower CPU priority (nice 10), so on a small shared machine they take what the server leaves
// rather than its turns; their CPU is printed too.
// Target: p50 and p95 under load within 2× of idle.

const SERVER_PORT = 30_581;
const SIM_PORT = 30_582;
const FILE_BYTES = 64 * 1024 * 1024;
const RANGE_BYTES = 1024 * 1024;
const READERS = 2;
const READS_PER_PHASE = 150;
const ROUNDS = 3;
const EPISODES = 32;

const base = `http://127.0.0.1:${SERVER_PORT}`;

function startChild(args: readonly string[], ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["bin/rollout-lens.mjs", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(ready)) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}: ${out}`)));
  });
}

function writeRolloutFile(path: string): void {
  const line = `${JSON.stringify({ prompt: "x".repeat(400), response: "y".repeat(600), reward: 1 })}\n`;
  writeFileSync(path, line.repeat(Math.ceil(FILE_BYTES / line.length)));
}

/** CPU seconds a process has used (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** `READS_PER_PHASE` range GETs, `READERS` at a time, at spread offsets; latencies in ms, sorted. */
async function rangeLatencies(fileId: string): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const reader = async () => {
    while (next < READS_PER_PHASE) {
      const k = next++;
      const start = ((k * 7919) % (FILE_BYTES / RANGE_BYTES - 1)) * RANGE_BYTES;
      const t0 = performance.now();
      const res = await fetch(
        `${base}/api/files/${fileId}/range?start=${start}&end=${start + RANGE_BYTES}`,
      );
      const bytes = (await res.arrayBuffer()).byteLength;
      if (res.status !== 200 || bytes !== RANGE_BYTES)
        throw new Error(`range ${k}: ${res.status}, ${bytes} bytes`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: READERS }, reader));
  return latencies.sort((a, b) => a - b);
}

/** The episode driver (rangesUnderEpisodes.driver.ts) in its own process, and its counts. */
async function startDriver() {
  const tsx = createRequire(import.meta.url).resolve("tsx/esm");
  const script = join(dirname(fileURLToPath(import.meta.url)), "rangesUnderEpisodes.driver.ts");
  const child = spawn(process.execPath, ["--import", tsx, script, base, String(EPISODES)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  if (child.pid) setPriority(child.pid, 10);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const nextLine = () => new Promise<string>((resolve) => lines.once("line", resolve));
  await nextLine(); // "streaming"
  return {
    stats: async (): Promise<{ finished: number; deltas: number }> => {
      const line = nextLine();
      child.stdin?.write("stats\n");
      return JSON.parse(await line);
    },
    pid: child.pid,
    /** Aborts the driver's running episodes and waits until it exits. */
    stop: async () => {
      const line = nextLine();
      child.stdin?.write("stop\n");
      await line; // "stopped"
    },
  };
}

interface Phase {
  readonly latencies: number[];
  /** Server CPU seconds and wall seconds. */
  cpu: number;
  wall: number;
  deltas: number;
  /** CPU seconds of the simulator and the episode watchers. */
  others: number;
}

const newPhase = (): Phase => ({ latencies: [], cpu: 0, wall: 0, deltas: 0, others: 0 });

/** One measurement of `phase`: range latencies and server CPU, added to `into`. */
async function measure(into: Phase, fileId: string, serverPid: number | undefined) {
  const cpu0 = cpuSeconds(serverPid);
  const t0 = performance.now();
  into.latencies.push(...(await rangeLatencies(fileId)));
  into.cpu += cpuSeconds(serverPid) - cpu0;
  into.wall += (performance.now() - t0) / 1000;
}

/** Alternating idle and loaded rounds (so the machine's other load falls on both alike). */
async function rounds(fileId: string, serverPid: number | undefined, simPid: number | undefined) {
  const idle = newPhase();
  const loaded = newPhase();
  for (let round = 0; round < ROUNDS; round++) {
    await measure(idle, fileId, serverPid);
    const episodes = await startDriver();
    await new Promise((resolve) => setTimeout(resolve, 3000)); // all 32 streaming
    const before = await episodes.stats();
    const others0 = cpuSeconds(simPid) + cpuSeconds(episodes.pid);
    await measure(loaded, fileId, serverPid);
    loaded.others += cpuSeconds(simPid) + cpuSeconds(episodes.pid) - others0;
    loaded.deltas += (await episodes.stats()).deltas - before.deltas;
    await episodes.stop();
  }
  return { idle, loaded };
}

function report(name: string, xs: readonly number[]): string {
  return `${name}: p50 ${quantile(xs, 0.5).toFixed(1)} ms, p95 ${quantile(xs, 0.95).toFixed(1)} ms`;
}

export default async function rangesUnderEpisodesBench() {
  const dir = mkdtempSync(join(tmpdir(), "rl-bench-ranges-"));
  const file = join(dir, "big.jsonl");
  writeRolloutFile(file);
  const sim = await startChild(
    [
      "sim",
      "--port",
      String(SIM_PORT),
      "--token-latency-ms",
      "10",
      // BENCH_CUMULATIVE=1: SGLang's default cumulative chunks (each carries the turn so far).
      ...(process.env.BENCH_CUMULATIVE === "1" ? [] : ["--delta-stream"]),
    ],
    String(SIM_PORT),
  );
  if (sim.pid) setPriority(sim.pid, 10);
  let server: ChildProcess | undefined;
  try {
    server = await startChild(
      [
        "serve",
        "--port",
        String(SERVER_PORT),
        "--sglang",
        `http://127.0.0.1:${SIM_PORT}`,
        "--data",
        join(dir, "data"),
        file,
      ],
      "Rollout Lens on",
    );
    const listing = (await (await fetch(`${base}/api/files`)).json()) as {
      files: { id: string; name: string }[];
    };
    const fileId = listing.files.find((f) => f.name === "big.jsonl")?.id ?? "f1";
    await rangeLatencies(fileId); // warm-up
    const { idle, loaded } = await rounds(fileId, server.pid, sim.pid);
    const sorted = (p: Phase) => p.latencies.sort((a, b) => a - b);
    const cpu = (p: Phase) => `server CPU ${((p.cpu / p.wall) * 100).toFixed(0)}% of a core`;
    console.log(
      `${idle.latencies.length} GETs of 1 MiB ranges of a 64 MiB file per phase, ${READERS} at a time, ${ROUNDS} alternating rounds`,
    );
    console.log(`${report("idle", sorted(idle))}; ${cpu(idle)}`);
    const streamed = `${loaded.deltas} delta events; simulator + watchers ${(loaded.others / loaded.wall).toFixed(2)} cores`;
    console.log(
      `${report(`${EPISODES} streaming episodes`, sorted(loaded))}; ${cpu(loaded)} (${streamed})`,
    );
    const p50 = quantile(loaded.latencies, 0.5) / quantile(idle.latencies, 0.5);
    const p95 = quantile(loaded.latencies, 0.95) / quantile(idle.latencies, 0.95);
    console.log(`ratio loaded/idle: p50 ${p50.toFixed(2)}, p95 ${p95.toFixed(2)} (target <= 2)`);
  } finally {
    // The server stops before its data directory goes.
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      server.kill();
      await exited;
    }
    sim.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
