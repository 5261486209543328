/**
 * Parse benchmark: one 32k-token line read into trajectories by `readRolloutLine`, next
 * to bare `JSON.parse` of the same line in the same run, for each format we read with token arrays
 * (ours, slime, strands, atropos). Target: >= 80% of JSON.parse throughput.
 * Run: `npx tsx bench/run.ts parseLine`.
 */
import { writeAtroposGroup } from "../src/core/formats/atropos";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeSlime } from "../src/core/formats/slime";
import { writeStrands } from "../src/core/formats/strands";
import type { FormatId } from "../src/core/formats/types";
import type { Trajectory } from "../src/core/trajectory/types";
import { generateLine } from "../src/test/rolloutFileGenerator";

const TOKENS = 32768;
const ROUNDS = 60;
const REPS = 3;

const fmt = (n: number, digits = 1) => n.toFixed(digits);

function trajectoryOf(line: string): Trajectory {
  const result = readRolloutLine(line, 1);
  const t = result.kind === "trajectories" ? result.trajectories[0] : undefined;
  if (!t) throw new Error(`the generated line does not read: ${JSON.stringify(result)}`);
  return t;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((p, q) => p - q);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Milliseconds per call of `a` and of `b`, each the median of ROUNDS rounds of REPS calls (the
 * median keeps the GC pauses a real read pays, unlike a best-of). The two alternate round by round
 * so both see the same load (other processes share these 2 cores).
 */
function medianMsPair(a: () => void, b: () => void): [number, number] {
  const timeReps = (run: () => void) => {
    const started = performance.now();
    for (let i = 0; i < REPS; i++) run();
    return (performance.now() - started) / REPS;
  };
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    as.push(timeReps(a));
    bs.push(timeReps(b));
  }
  return [median(as), median(bs)];
}

export default async function main(): Promise<void> {
  const ours = generateLine(7, { tokens: TOKENS });
  const t = trajectoryOf(ours);
  // atropos lines are groups: one row of 32k tokens, so the per-line work matches the others.
  const lines: { format: FormatId; line: string }[] = [
    { format: "rollout-lens/v1", line: ours },
    { format: "slime", line: stringifyJsonLine(writeSlime(t)) },
    { format: "strands", line: stringifyJsonLine(writeStrands(t)) },
    { format: "atropos", line: stringifyJsonLine(writeAtroposGroup([t])) },
  ];
  const only = process.env.PARSE_FORMAT;
  for (const { format, line } of lines.filter((l) => only === undefined || l.format === only)) {
    const check = readRolloutLine(line, 1);
    if (check.kind !== "trajectories" || check.format !== format) {
      throw new Error(`${format} line reads as ${JSON.stringify(check).slice(0, 200)}`);
    }
    const parse = () => JSON.parse(line);
    const read = () => readRolloutLine(line, 1);
    medianMsPair(parse, read); // warm-up: let both reach optimized code
    const [bareMs, readMs] = medianMsPair(parse, read);
    const mibps = (ms: number) => line.length / 1024 ** 2 / (ms / 1000);
    console.log(
      `${format.padEnd(16)} ${fmt(line.length / 1024, 0)} KiB: JSON.parse ${fmt(bareMs, 2)} ms (${fmt(mibps(bareMs))} MiB/s), readRolloutLine ${fmt(readMs, 2)} ms (${fmt(mibps(readMs))} MiB/s), ratio ${fmt((bareMs / readMs) * 100, 0)}% (target >= 80%; medians of ${ROUNDS}x${REPS})`,
    );
  }
}
