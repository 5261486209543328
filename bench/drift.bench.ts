// Round-trip drift scan of a generated agent corpus (>= 20 MB of decoded text) with our detector
// (byte-level fast path, one thread) next to the native HF tokenizer (Rust, `encodeBatch`, all
// cores) encoding the same texts, in the same run. Prints both throughputs, the ratio (target:
// ours >= 3x native) and whether the verdicts (first divergence index) agree on every trajectory.
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { createAcceleratorFor } from "../server/drift/accelerator";
import { createDriftPool } from "../server/drift/driftPool";
import { generateCorpus } from "../server/drift/syntheticCorpus";
import { loadTokenizer, resolveTokenizerDir } from "../server/tokenizers/loadTokenizer";
import { detectDrift, firstDivergence } from "../src/core/drift/detectDrift";
import { flattenSegments } from "../src/core/trajectory/flatten";
import type { Trajectory } from "../src/core/trajectory/types";

const TARGET_BYTES = Number(process.env.DRIFT_BENCH_MB ?? 20) * 1e6;
const NAME = "qwen3";

const tokenizer = await loadTokenizer(NAME);
const accelerator = await createAcceleratorFor(NAME, tokenizer);
if (!accelerator) throw new Error(`${NAME}: no round-trip fast path`);
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
console.log(`corpus: ${trajectories.length} trajectories, ${mb.toFixed(1)} MB decoded text`);

function timeOurs(): { seconds: number; verdicts: (number | null)[] } {
  const start = performance.now();
  const verdicts = trajectories.map(
    ({ trajectory }) =>
      detectDrift(trajectory, tokenizer, { accelerator })[0]?.firstDivergenceIndex ?? null,
  );
  return { seconds: (performance.now() - start) / 1000, verdicts };
}

async function timeNative(): Promise<{ seconds: number; encoded: number[][] }> {
  const start = performance.now();
  const encoded = await nativeEncode(texts);
  return { seconds: (performance.now() - start) / 1000, encoded };
}

for (const pass of [1, 2]) {
  const theirs = await timeNative();
  const ours = timeOurs();
  const reference = trajectories.map(
    ({ ids }, i) => firstDivergence(ids, theirs.encoded[i] ?? []) ?? null,
  );
  const mismatches = reference.filter((v, i) => v !== ours.verdicts[i]).length;
  const drifted = reference.filter((v) => v !== null).length;
  const oursMbs = mb / ours.seconds;
  const nativeMbs = mb / theirs.seconds;
  console.log(
    `pass ${pass}: ours ${oursMbs.toFixed(2)} MB/s (${ours.seconds.toFixed(2)} s), ` +
      `native encodeBatch ${nativeMbs.toFixed(2)} MB/s (${theirs.seconds.toFixed(2)} s), ` +
      `ratio ${(oursMbs / nativeMbs).toFixed(2)}x (target >= 3x: ${oursMbs >= 3 * nativeMbs ? "met" : "NOT met"}), ` +
      `verdicts identical: ${mismatches === 0} (${mismatches} mismatches, ${drifted} drifted of ${reference.length})`,
  );
}

// The same scan across 2 worker threads (native encodeBatch also uses every core). Workers are
// started and warmed on a small slice first, so the timing covers the scan only.
const pool = createDriftPool(NAME, 2);
const BATCH = 200;
const batches: Trajectory[][] = [];
for (let i = 0; i < trajectories.length; i += BATCH) {
  batches.push(trajectories.slice(i, i + BATCH).map((t) => t.trajectory));
}
await Promise.all([
  pool.check(batches[0] ?? [], ["roundtrip"]),
  pool.check(batches[1] ?? [], ["roundtrip"]),
]);
{
  const theirs = await timeNative();
  const start = performance.now();
  const results = (await Promise.all(batches.map((b) => pool.check(b, ["roundtrip"])))).flat();
  const seconds = (performance.now() - start) / 1000;
  const reference = trajectories.map(
    ({ ids }, i) => firstDivergence(ids, theirs.encoded[i] ?? []) ?? null,
  );
  const mismatches = reference.filter(
    (v, i) => v !== (results[i]?.[0]?.firstDivergenceIndex ?? null),
  ).length;
  const oursMbs = mb / seconds;
  const nativeMbs = mb / theirs.seconds;
  console.log(
    `2 worker threads: ours ${oursMbs.toFixed(2)} MB/s (${seconds.toFixed(2)} s), ` +
      `native encodeBatch ${nativeMbs.toFixed(2)} MB/s (${theirs.seconds.toFixed(2)} s), ` +
      `ratio ${(oursMbs / nativeMbs).toFixed(2)}x (target >= 3x: ${oursMbs >= 3 * nativeMbs ? "met" : "NOT met"}), ` +
      `verdicts identical: ${mismatches === 0} (${mismatches} mismatches)`,
  );
}
await pool.close();
