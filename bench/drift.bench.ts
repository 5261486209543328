// (a) First, what a user meets: the CLI as a whole process against the native tokenizer's whole
// process on a corpus of real text (bench/driftCli.ts). (c) Then the WARM in-process passes below:
// the tokenizer loaded and the corpus parsed before timing, so no user sees these figures.
// Round-trip drift scan of a generated agent corpus (>= 20 MB of decoded text) with our detector
// (byte-level fast path, one thread, then 2 worker threads) next to the native HF tokenizer (Rust,
// `encodeBatch`, all cores) encoding the same texts, in the same run. Prints both throughputs per
// pass (pass 1 cold, then steady state; sides alternate), the medians, the ratio (target: ours >=
// 3x native) and whether the verdicts (first divergence index) agree on every trajectory.
// DRIFT_BENCH_MB sets the corpus size, DRIFT_BENCH_PASSES the passes per side (default 3).
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { createDriftPool } from "../server/drift/driftPool";
import { loadTokenizer, resolveTokenizerDir } from "../server/tokenizers/loadTokenizer";
import { detectDrift, firstDivergence } from "../src/core/drift/detectDrift";
import { roundTripPlanFor } from "../src/core/tokenizer/roundTripPlan";
import { flattenSegments } from "../src/core/trajectory/flatten";
import type { Trajectory } from "../src/core/trajectory/types";
import { generateCorpus } from "../test-support/syntheticCorpus";
import { cliWholeProcess } from "./driftCli";

console.log("(a) CLI, whole process, vs the native tokenizer's whole process");
await cliWholeProcess();
console.log("(c) WARM in-process passes (tokenizer loaded, corpus parsed before timing)");

const TARGET_BYTES = Number(process.env.DRIFT_BENCH_MB ?? 20) * 1e6;
const NAME = "qwen3";

const tokenizer = await loadTokenizer(NAME);
const plan = roundTripPlanFor(tokenizer);
if (plan.path !== "fast") throw new Error(`${NAME}: no round-trip fast path: ${plan.reason}`);
const { accelerator } = plan;
const native = NativeTokenizer.fromFile(`${resolveTokenizerDir(NAME)}/tokenizer.json`);
const nativeEncode = async (texts: readonly string[]) =>
  (await native.encodeBatch([...texts], { addSpecialTokens: false })).map((e) => e.getIds());

// Generate until the decoded text reaches the target size (seeded: the same corpus every run).
const trajectories: { trajectory: Trajectory; ids: number[] }[] = [];
const texts: string[] = [];
let bytes = 0;
for (let seed = 1; bytes < TARGET_BYTES; seed++) {
  const batch = await generateCorpus(tokenizer, nativeEncode, { seed, count: 500, driftRate: 0.1 });
  const ids = batch.map((g) => flattenSegments(g.trajectory.segments).tokenIds);
  const decoded = await native.decodeBatch(ids, false);
  for (const [i, g] of batch.entries()) {
    trajectories.push({ trajectory: g.trajectory, ids: ids[i] ?? [] });
    const text = decoded[i] ?? "";
    texts.push(text);
    bytes += Buffer.byteLength(text);
  }
}
const mb = bytes / 1e6;
console.log(`warm corpus: ${trajectories.length} trajectories, ${mb.toFixed(1)} MB decoded text`);

function timeOurs(): { seconds: number; verdicts: (number | null)[] } {
  const start = performance.now();
  const verdicts = trajectories.map(
    ({ trajectory }): number | null =>
      detectDrift(trajectory, tokenizer, { accelerator })[0]?.firstDivergenceIndex ?? null,
  );
  return { seconds: (performance.now() - start) / 1000, verdicts };
}

async function timeNative(): Promise<{ seconds: number; encoded: number[][] }> {
  const start = performance.now();
  const encoded = await nativeEncode(texts);
  return { seconds: (performance.now() - start) / 1000, encoded };
}

const PASSES = Number(process.env.DRIFT_BENCH_PASSES ?? 3);
const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid)
    ? ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
    : (sorted[Math.floor(mid)] ?? 0);
};

/** Reference verdicts from native round-trip ids, and how many disagree with `ours`. */
function mismatches(encoded: readonly number[][], ours: readonly (number | null)[]): number {
  return trajectories.filter(
    ({ ids }, i) => (firstDivergence(ids, encoded[i] ?? []) ?? null) !== ours[i],
  ).length;
}

function line(label: string, oursSeconds: number, nativeSeconds: number, bad: number): string {
  const oursMbs = mb / oursSeconds;
  const nativeMbs = mb / nativeSeconds;
  return (
    `warm, ${label}: ours ${oursMbs.toFixed(2)} MB/s (${oursSeconds.toFixed(2)} s), ` +
    `native encodeBatch ${nativeMbs.toFixed(2)} MB/s (${nativeSeconds.toFixed(2)} s), ` +
    `ratio ${(oursMbs / nativeMbs).toFixed(2)}x (target >= 3x: ${oursMbs >= 3 * nativeMbs ? "met" : "NOT met"}), ` +
    `verdicts identical: ${bad === 0} (${bad} mismatches)`
  );
}

// Pass 1 is cold on both sides (our verdict caches empty, native's first batch); later passes are
// steady state. Sides alternate so background load hits both; the summary takes each side's median.
const oursTimes: number[] = [];
const nativeTimes: number[] = [];
let drifted = 0;
for (let pass = 1; pass <= PASSES; pass++) {
  const theirs = await timeNative();
  const ours = timeOurs();
  const bad = mismatches(theirs.encoded, ours.verdicts);
  drifted = ours.verdicts.filter((v) => v !== null).length;
  console.log(line(`pass ${pass}`, ours.seconds, theirs.seconds, bad));
  if (pass > 1) {
    oursTimes.push(ours.seconds);
    nativeTimes.push(theirs.seconds);
  }
}
if (oursTimes.length > 0) {
  console.log(
    `${line(`1 thread, median of passes 2-${PASSES}`, median(oursTimes), median(nativeTimes), 0)}; ${drifted} drifted of ${trajectories.length}`,
  );
}

// The same scan across 2 worker threads (native encodeBatch also uses every core). One untimed
// pass over the whole corpus loads each worker's tokenizer and fills its caches (each worker has
// its own), so the timed passes measure the steady state, as a long-running server sees it.
const pool = createDriftPool(NAME, 2);
const BATCH = 250;
const batches: Trajectory[][] = [];
for (let i = 0; i < trajectories.length; i += BATCH) {
  batches.push(trajectories.slice(i, i + BATCH).map((t) => t.trajectory));
}
const scanPool = async () => {
  const start = performance.now();
  const results = (await Promise.all(batches.map((b) => pool.check(b, ["roundtrip"])))).flat();
  const verdicts = results.map((r) => r.results[0]?.firstDivergenceIndex ?? null);
  return { seconds: (performance.now() - start) / 1000, verdicts };
};
const warm = await scanPool();
console.log(
  `warm, 2 worker threads, cold (untimed warm-up): ours ${(mb / warm.seconds).toFixed(2)} MB/s`,
);
const poolTimes: number[] = [];
const poolNative: number[] = [];
for (let pass = 1; pass <= PASSES; pass++) {
  const theirs = await timeNative();
  const ours = await scanPool();
  const bad = mismatches(theirs.encoded, ours.verdicts);
  console.log(line(`2 worker threads, pass ${pass}`, ours.seconds, theirs.seconds, bad));
  poolTimes.push(ours.seconds);
  poolNative.push(theirs.seconds);
}
console.log(line("2 worker threads, median", median(poolTimes), median(poolNative), 0));
await pool.close();
