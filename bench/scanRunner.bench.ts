/**
 * The scanning commands' runner (server/scan/scanRunner.ts): `mismatch --json` and `groups --json`
 * over a directory of rollout files, in process (`--jobs 1`) and on two scan workers (`--jobs 2`),
 * next to the baseline measured in the same run: reading the same files into trajectories with
 * the one reader (`readRecords`), nothing else. Targets: each scan at >= 80% of the speed of the
 * read; `--jobs 2` faster than `--jobs 1` where there are files enough for two workers.
 * Run: `npx tsx bench/run.ts scanRunner`. From a clone every worker starts through tsx (seconds
 * of its own on a loaded machine), which the in-process `--jobs 2` figures include; so the same
 * commands are also timed as whole processes of the compiled CLI (`lib/cli.js`, built by
 * `npm pack` or scripts/buildServer.ts) when it is there, with `validate` as the read baseline.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../server/cli";
import { expandInputs } from "../server/files/expandInputs";
import { readRecords } from "../server/files/readLines";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import { seededRandom } from "../src/core/random";
import { sampledLane, withLane } from "../src/core/trajectory/lanes";
import { generateLine } from "../src/test/rolloutFileGenerator";

const FILES = 4;
const LINES = 40;
/** Rounds of every run (SCAN_BENCH_ROUNDS): the machine's speed phases move one round by 10-20 %. */
const ROUNDS = Number(process.env.SCAN_BENCH_ROUNDS ?? 9);

function median(xs: number[]): number {
  const sorted = [...xs].sort((p, q) => p - q);
  return sorted[sorted.length >> 1] ?? 0;
}

/** rollout-lens/v1 lines of 8k tokens with a `trainer` lane off the sampled logprobs by noise. */
function laneLines(count: number, seed: number): string[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, (_, k) => {
    const read = readRolloutLine(generateLine(seed * 1000 + k, { tokens: 8192 }), k + 1);
    const t = read.kind === "trajectories" ? read.trajectories[0] : undefined;
    if (!t) throw new Error("the generated line does not read");
    const trainer = sampledLane(t).map((v) => (v === null ? null : v + (rand() - 0.5) * 0.1));
    return stringifyJsonLine(writeRolloutLens(withLane(t, "trainer", trainer)));
  });
}

/** One run's wall-clock seconds, and its CPU seconds (undefined where they cannot be read). */
interface Timing {
  readonly wall: number;
  readonly cpu: number | undefined;
}

/**
 * CPU seconds so far: this process's (every thread, so the scan workers' too) plus those of the
 * children it has waited for (Linux: /proc/self/stat's cutime and cstime, in clock ticks of
 * 1/100 s), so the compiled CLI's whole processes count as well. Undefined without /proc.
 */
function cpuSeconds(): number | undefined {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // The fields after the command name (which may hold spaces) start at the state, field 3.
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
  return (own.user + own.system) / 1e6 + children;
}

async function seconds(run: () => Promise<unknown>): Promise<Timing> {
  const started = performance.now();
  const cpuStarted = cpuSeconds();
  await run();
  const cpuEnded = cpuSeconds();
  const cpu =
    cpuStarted === undefined || cpuEnded === undefined ? undefined : cpuEnded - cpuStarted;
  return { wall: (performance.now() - started) / 1000, cpu };
}

/** The baseline: every record of every file read into trajectories, in process. */
async function readAll(dir: string): Promise<void> {
  const { files } = await expandInputs([dir]);
  for (const path of files) for await (const _ of readRecords(path));
}

const quiet = { out: () => {}, err: () => {}, write: () => {} };

const CLI = new URL("../lib/cli.js", import.meta.url);

/** One whole process of the compiled CLI through `launcher` (bin/'s last line), output dropped. */
async function compiled(launcher: string, args: string[]): Promise<void> {
  const done = spawnSync(process.execPath, [launcher, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Every file of the corpus reads and compares: anything but 0 is a failed run, not a time.
  if (done.status !== 0)
    throw new Error(`lib/cli.js ${args[0]} exited ${done.status}: ${done.stderr}`);
}

/** Each run in turn, starting one further along every round so none always follows the same. */
async function timeRounds(
  runs: Record<string, () => Promise<unknown>>,
): Promise<Record<string, Timing[]>> {
  const names = Object.keys(runs);
  const times: Record<string, Timing[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as string;
      const run = runs[name] as () => Promise<unknown>;
      times[name]?.push(await seconds(run));
    }
  }
  return times;
}

/** Median of the per-round ratios base/run: each round's pair saw the same load. */
function pairedRatio(base: readonly number[], run: readonly number[]): number {
  return median(run.map((x, i) => (base[i] ?? Number.NaN) / x));
}

/**
 * Every run timed round by round (timeRounds) and printed against `base`: the median seconds,
 * the ratio of the medians and, more robust to the machine's speed phases, the median of the
 * rounds' own ratios. Wall clock is what a user waits; CPU seconds (every thread, children
 * waited for) are printed beside it because on a shared machine whose load is several times its
 * cores the wall clock mostly measures the other processes.
 */
async function timeRuns(
  runs: Record<string, () => Promise<unknown>>,
  base: string,
  mb: number,
): Promise<void> {
  const times = await timeRounds(runs);
  const walls = (name: string) => (times[name] ?? []).map((t) => t.wall);
  const cpus = (name: string) => {
    const list = (times[name] ?? []).map((t) => t.cpu);
    return list.every((c) => c !== undefined) ? (list as number[]) : undefined;
  };
  const baseWall = walls(base);
  const baseCpu = cpus(base);
  for (const name of Object.keys(times)) {
    const s = median(walls(name));
    const cpu = cpus(name);
    const cpuText =
      cpu === undefined || baseCpu === undefined
        ? ""
        : `; CPU ${median(cpu).toFixed(2)} s, ${pct(median(baseCpu) / median(cpu))} ` +
          `(rounds' ${pct(pairedRatio(baseCpu, cpu))}) of the read's`;
    console.log(
      `${name.padEnd(26)} ${s.toFixed(2)} s, ${(mb / s).toFixed(1)} MB/s, ` +
        `${pct(median(baseWall) / s)} (rounds' ${pct(pairedRatio(baseWall, walls(name)))}) ` +
        `of the read's speed${cpuText} (medians of ${ROUNDS})`,
    );
  }
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

export default async function bench(): Promise<void> {
  const dir = join(mkdtempSync(join(tmpdir(), "rollout-lens-scan-bench-")), "run");
  mkdirSync(dir);
  let bytes = 0;
  for (let f = 0; f < FILES; f++) {
    const text = `${laneLines(LINES, f + 1).join("\n")}\n`;
    bytes += text.length;
    writeFileSync(join(dir, `step_${f}.jsonl`), text);
  }
  const mb = bytes / 1e6;
  console.log(`${FILES} files, ${mb.toFixed(1)} MB, ${FILES * LINES} trajectories of 8k tokens`);
  await timeRuns(
    {
      "read (baseline)": () => readAll(dir),
      "mismatch --jobs 1": () => main(["mismatch", dir, "--json"], quiet),
      "mismatch --jobs 2": () => main(["mismatch", dir, "--json", "--jobs", "2"], quiet),
      "groups --jobs 1": () => main(["groups", dir, "--json"], quiet),
      "groups --jobs 2": () => main(["groups", dir, "--json", "--jobs", "2"], quiet),
    },
    "read (baseline)",
    mb,
  );
  if (!existsSync(fileURLToPath(CLI))) {
    console.log("no lib/cli.js: build it (npm pack) to time the compiled CLI's whole processes");
    return;
  }
  console.log("compiled CLI (lib/cli.js), whole processes:");
  const launcher = join(dir, "..", "launch.mjs");
  writeFileSync(
    launcher,
    `const cli = await import(${JSON.stringify(CLI.href)});\nprocess.exitCode = await cli.main(process.argv.slice(2));\n`,
  );
  const lib = (args: string[]) => () => compiled(launcher, args);
  await timeRuns(
    {
      "validate (read baseline)": lib(["validate", dir, "--json"]),
      "mismatch --jobs 1": lib(["mismatch", dir, "--json"]),
      "mismatch --jobs 2": lib(["mismatch", dir, "--json", "--jobs", "2"]),
      "groups --jobs 1": lib(["groups", dir, "--json"]),
      "groups --jobs 2": lib(["groups", dir, "--json", "--jobs", "2"]),
    },
    "validate (read baseline)",
    mb,
  );
}
