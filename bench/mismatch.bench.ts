/**
 * File-wide mismatch scan benchmark: the lines of a file read and scanned into the
 * per-row mismatch and the file-wide charts (`scanMismatchLine`, what each scan worker runs), next
 * to reading the same lines into trajectories (`readRolloutLine`, the parse the app does), in
 * the same run. Target: the scan at >= 80% of the speed of the parse.
 * Run: `npx tsx bench/run.ts mismatch`.
 *
 * Each format is timed in a process of its own, as a scan worker meets one file: in one process
 * the formats timed first leave their element kinds and object shapes in the JIT's feedback of
 * both paths, and the later ones were measured slower (atropos after NeMo-RL). Within a process
 * parse and scan alternate round by round on the same lines, so both see the same load.
 * MISMATCH_BENCH_FORMAT=<name> times that format alone in this process; MISMATCH_BENCH_FORMAT=all
 * times every format in this one process, one after the other (the order effect, for comparison).
 * Every scan includes the decomposition (docs/mismatch.md "Decomposition"); `decomposed` lines
 * carry everything it reads (top-20, sampling params, kept sets, a rescored lane), so there every
 * term is computed.
 */
import { spawnSync } from "node:child_process";
import { atroposMismatchFile, nemoRlMismatchFile } from "../e2e/fixtures/mismatchFiles";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import {
  createFileMismatchScan,
  finishCharts,
  scanMismatchLine,
} from "../src/core/mismatch/fileMismatch";
import { correction } from "../src/core/mismatch/mismatch";
import { seededRandom } from "../src/core/random";
import { sampledLane, withLane } from "../src/core/trajectory/lanes";
import type { Trajectory } from "../src/core/trajectory/types";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { modelSegment, promptSegment } from "../src/test/trajectoryBuilders";

const ROUNDS = 41;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

function median(xs: number[]): number {
  const sorted = [...xs].sort((p, q) => p - q);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Median ms of `a` and of `b` over ROUNDS rounds, alternating so both see the same load. */
function medianMsPair(a: () => void, b: () => void): [number, number] {
  const as: number[] = [];
  const bs: number[] = [];
  const time = (run: () => void) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };
  for (let round = 0; round < ROUNDS; round++) {
    as.push(time(a));
    bs.push(time(b));
  }
  return [median(as), median(bs)];
}

/** rollout-lens/v1 lines of 8k tokens with a `trainer` lane off the sampled logprobs by noise. */
function rolloutLensLines(count: number): string[] {
  const rand = seededRandom(5);
  return Array.from({ length: count }, (_, k) => {
    const read = readRolloutLine(generateLine(k, { tokens: 8192 }), k + 1);
    const t = read.kind === "trajectories" ? read.trajectories[0] : undefined;
    if (!t) throw new Error("the generated line does not read");
    const trainer = sampledLane(t).map((v) => (v === null ? null : v + (rand() - 0.5) * 0.1));
    return stringifyJsonLine(writeRolloutLens(withLane(t, "trainer", trainer)));
  });
}

/** One sampled position: top-20 at T = 0.7, renormalised over top_p = 0.9, rescored at T = 1. */
function position(rand: () => number, id: number) {
  const z = Array.from({ length: 20 }, (_, j) => (j === 0 ? 0 : -j * (0.2 + rand())));
  const lse = (t: number) => Math.log(z.reduce((sum, v) => sum + Math.exp(v / t), 0));
  const top = z.map((v, j) => ({ tokenId: id + j, logprob: v / 0.7 - lse(0.7) }));
  let before = 0;
  const kept = top.filter((e) => {
    const keep = before <= 0.9;
    before += Math.exp(e.logprob);
    return keep;
  });
  const mass = Math.log(kept.reduce((sum, e) => sum + Math.exp(e.logprob), 0));
  const sampled = Math.min(0, (top[0]?.logprob ?? 0) - mass);
  const rescored = Math.min(-1e-9, -lse(1) + (rand() - 0.5) * 0.05);
  return { top, kept: kept.map((e) => e.tokenId), sampled, rescored };
}

/**
 * rollout-lens/v1 lines of 2k model tokens that the decomposition reads in full: sampling params
 * (T = 0.7, top_p = 0.9), a top-20 per token, slime's kept-set fields and a `rescored` lane.
 */
function decomposedLines(count: number): string[] {
  const rand = seededRandom(7);
  return Array.from({ length: count }, (_, k) => {
    const prompt = Array.from({ length: 64 }, (_, i) => 1000 + i);
    const at = Array.from({ length: 2048 }, (_, i) => position(rand, 5000 + 20 * (i % 500)));
    const ids = at.map((p) => p.top[0]?.tokenId ?? 0);
    const kept = at.flatMap((p) => p.kept);
    const offsets = [0];
    for (const p of at) offsets.push((offsets.at(-1) ?? 0) + p.kept.length);
    const t: Trajectory = {
      id: `d${k}`,
      source: { kind: "file" },
      format: "rollout-lens/v1",
      status: "completed",
      samplingParams: { temperature: 0.7, top_p: 0.9 },
      segments: [
        promptSegment(prompt),
        modelSegment(ids, 1, {
          logprobs: at.map((p) => p.sampled),
          topLogprobs: at.map((p) => p.top),
        }),
      ],
      logprobLanes: { rescored: [...prompt.map(() => null), ...at.map((p) => p.rescored)] },
      metadata: { rollout_top_p_token_ids: kept, rollout_top_p_token_offsets: offsets },
    };
    return stringifyJsonLine(writeRolloutLens(t));
  });
}

const FILES: Record<string, () => string[]> = {
  "nemo-rl": () => nemoRlMismatchFile(2_000).text.trimEnd().split("\n"),
  atropos: () => atroposMismatchFile(500).text.trimEnd().split("\n"),
  "rollout-lens/v1": () => rolloutLensLines(48),
  decomposed: () => decomposedLines(24),
};

function timeFormat(name: string, lines: readonly string[]): void {
  const options = { correction: correction("token-trunc") };
  const bytes = lines.reduce((s, l) => s + l.length + 1, 0);
  let tokens = 0;
  const parse = () => {
    lines.forEach((line, i) => {
      readRolloutLine(line, i + 1);
    });
  };
  const scan = () => {
    const state = createFileMismatchScan();
    lines.forEach((line, i) => {
      scanMismatchLine(state, line, i + 1, 0, options);
    });
    tokens = finishCharts(state.charts).compared;
  };
  medianMsPair(parse, scan); // warm-up: let both reach optimized code
  const [parseMs, scanMs] = medianMsPair(parse, scan);
  const mibps = (ms: number) => bytes / 1024 ** 2 / (ms / 1000);
  console.log(
    `${name.padEnd(16)} ${lines.length} lines, ${fmt(bytes / 1024 ** 2)} MiB, ${tokens} compared tokens: parse ${fmt(parseMs)} ms (${fmt(mibps(parseMs))} MiB/s), mismatch scan ${fmt(scanMs)} ms (${fmt(mibps(scanMs))} MiB/s), ratio ${fmt((parseMs / scanMs) * 100, 0)}% (target >= 80%; medians of ${ROUNDS})`,
  );
}

export default async function main(): Promise<void> {
  const only = process.env.MISMATCH_BENCH_FORMAT;
  if (only !== undefined) {
    const names = only === "all" ? Object.keys(FILES) : [only];
    for (const name of names) {
      const file = FILES[name];
      if (!file) throw new Error(`no bench file ${name} (${Object.keys(FILES).join(", ")})`);
      timeFormat(name, file());
    }
    return;
  }
  // One child per format: this same runner, told which format to time.
  for (const name of Object.keys(FILES)) {
    const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, MISMATCH_BENCH_FORMAT: name },
      stdio: ["ignore", "pipe", "inherit"],
      encoding: "utf8",
    });
    if (child.status !== 0) throw new Error(`the ${name} bench process failed (${child.status})`);
    process.stdout.write(child.stdout.replace(/^\n## .*\n/, ""));
  }
}
