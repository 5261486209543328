/**
 * Corrections benchmark (docs/mismatch.md "Every correction replayed"): atropos group lines with
 * inference_logprobs and ref_logprobs (e2e/fixtures/mismatchFiles.ts) read into trajectories by
 * `readRolloutLine`, next to the same read followed by every correction replayed over the file
 * (`replayCollector`, what `mismatch --correction <all>` and the what-if table run), alternating
 * round by round in the same run. Reports the replay run's throughput as a share of the
 * parse-only run. Run: `npm run bench -- corrections [--groups N]` (default 1500 groups of 4).
 */
import { atroposMismatchFile } from "../e2e/fixtures/mismatchFiles";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { defaultChoices } from "../src/core/mismatch/corrections/registry";
import { replayCollector } from "../src/core/mismatch/corrections/replayRows";

const groupsArg = process.argv.indexOf("--groups");
const GROUPS = groupsArg >= 0 ? Number(process.argv[groupsArg + 1]) : 1500;
const ROUNDS = 5;

function run(lines: readonly string[], withReplays: boolean): number {
  const collector = replayCollector(undefined);
  let row = 0;
  for (const [k, line] of lines.entries()) {
    const result = readRolloutLine(line, k + 1);
    if (result.kind !== "trajectories") throw new Error(`line ${k + 1} does not read`);
    if (withReplays) for (const t of result.trajectories) collector.add(t, row++);
  }
  return withReplays ? (collector.finish(defaultChoices()).replays[0]?.summary.compared ?? 0) : 0;
}

export default async function main(): Promise<void> {
  const lines = atroposMismatchFile(GROUPS).text.split("\n").filter(Boolean);
  const bytes = lines.reduce((sum, l) => sum + l.length, 0);
  const parse: number[] = [];
  const replays: number[] = [];
  let compared = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    run(lines, false);
    parse.push(performance.now() - started);
    started = performance.now();
    compared = run(lines, true);
    replays.push(performance.now() - started);
  }
  const best = (xs: number[]) => Math.min(...xs);
  const mibps = (ms: number) => bytes / 1024 / 1024 / (ms / 1000);
  const n = defaultChoices().length;
  console.log(
    `corrections: ${lines.length} atropos groups of 4, ${compared.toLocaleString("en-US")} compared tokens, ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
  );
  console.log(
    `  parse only ${mibps(best(parse)).toFixed(1)} MiB/s · parse + ${n} corrections replayed ${mibps(best(replays)).toFixed(1)} MiB/s · ratio ${((100 * best(parse)) / best(replays)).toFixed(0)} %`,
  );
}
