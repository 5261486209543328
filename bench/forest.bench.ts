/**
 * Forest benchmark (docs/forest.md): atropos group lines (8 members of 8k tokens sharing a 4k
 * prompt; every fourth group token-identical) read into trajectories by `readRolloutLine`, next to
 * the same read followed by the forest and forensics of each group (`forestCollector`, what
 * `rollout-lens groups` and the file worker run), alternating round by round in the same run.
 * Reports the forest run's throughput as a share of the parse-only run. Target: >= 50 %.
 * Run: `npm run bench -- forest [--mib N]` (default 32 MiB of lines, generated in memory).
 */
import { forestCollector } from "../src/core/forest/forestOf";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";

const mibArg = process.argv.indexOf("--mib");
const MIB = mibArg >= 0 ? Number(process.argv[mibArg + 1]) : 32;
const MEMBERS = 8;
const PROMPT = 4096;
const RESPONSE = 4096;
const ROUNDS = 5;

function groupLine(g: number): string {
  const prompt = Array.from({ length: PROMPT }, (_, i) => 1000 + ((i * 7 + g) % 30000));
  const tokens: number[][] = [];
  const masks: number[][] = [];
  for (let m = 0; m < MEMBERS; m++) {
    const seed = g % 4 === 0 ? 0 : m;
    const response = Array.from(
      { length: RESPONSE },
      (_, i) => 2000 + ((i * 13 + seed * 31) % 20000),
    );
    tokens.push([...prompt, ...response]);
    masks.push([...prompt.map(() => -100), ...response]);
  }
  const scores = Array.from({ length: MEMBERS }, (_, m) => (g % 4 === 0 ? 1 : m % 2));
  return JSON.stringify({ tokens, masks, scores });
}

function run(lines: readonly string[], withForest: boolean): number {
  const collector = forestCollector({ isDetailed: false });
  let groups = 0;
  for (const [k, line] of lines.entries()) {
    const result = readRolloutLine(line, k + 1);
    if (result.kind !== "trajectories") throw new Error(`line ${k + 1} does not read`);
    if (withForest) collector.addLine(result.trajectories, result.format);
  }
  if (withForest) groups = collector.finish().length;
  return groups;
}

export default async function main(): Promise<void> {
  const first = groupLine(0);
  const count = Math.max(4, Math.round((MIB * 1024 * 1024) / first.length));
  const lines = Array.from({ length: count }, (_, g) => (g === 0 ? first : groupLine(g)));
  const bytes = lines.reduce((sum, l) => sum + l.length, 0);
  const parse: number[] = [];
  const forest: number[] = [];
  let groups = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    run(lines, false);
    parse.push(performance.now() - started);
    started = performance.now();
    groups = run(lines, true);
    forest.push(performance.now() - started);
  }
  const best = (xs: number[]) => Math.min(...xs);
  const mibps = (ms: number) => bytes / 1024 / 1024 / (ms / 1000);
  console.log(
    `forest: ${count} groups of ${MEMBERS} × ${(PROMPT + RESPONSE).toLocaleString("en-US")} tokens, ${(bytes / 1024 / 1024).toFixed(0)} MiB`,
  );
  console.log(
    `  parse only ${mibps(best(parse)).toFixed(1)} MiB/s · parse + forest + forensics ${mibps(best(forest)).toFixed(1)} MiB/s (${groups} groups) · ratio ${((100 * best(parse)) / best(forest)).toFixed(0)} % (target >= 50 %)`,
  );
}
