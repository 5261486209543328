// `rollout-lens drift FILE --json` as a user runs it — one whole process: start-up,
// reading and parsing the file, loading the tokenizer, the check, printing — against the native
// tokenizer doing the same whole-process check (bench/nativeDriftCheck.mjs) on the same corpus of
// diverse real text (bench/driftCorpus.ts, >= 20 MB of text), interleaved, with verdicts compared
// row by row, and a one-line file for start-up. Wall and CPU time and peak memory from
// /usr/bin/time; `node -e 0` in the same runs as the floor. The CLI is the compiled one (lib/, as
// installed), built first. DRIFT_CLI_RUNS sets the runs (default 3), DRIFT_BENCH_MB the text size.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { buildServer } from "../scripts/buildServer";
import { resolveTokenizerDir } from "../server/tokenizers/loadTokenizer";
import { fixtureLines } from "../src/test/fixtureFiles";
import { describeCorpus, isHardCorpus, writeRealTextCorpus } from "./driftCorpus";

const root = join(import.meta.dirname, "..");

interface Run {
  readonly wall: number;
  readonly cpu: number;
  readonly rssMiB: number;
  readonly stdout: string;
}

/** One whole process under /usr/bin/time (wall s, user+sys s, peak RSS). */
function timed(args: readonly string[], expectCodes: readonly number[]): Run {
  const result = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S %M", ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  const m = /^TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(last);
  if (!m || !expectCodes.includes(result.status ?? -1)) {
    throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr.slice(-2000)}`);
  }
  return {
    wall: Number(m[1]),
    cpu: Number(m[2]) + Number(m[3]),
    rssMiB: Number(m[4]) / 1024,
    stdout: result.stdout,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const range = (xs: readonly number[], digits = 2) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** Our verdicts per line from a `drift --json` report: first divergence or null. */
function ourVerdicts(report: string): Map<number, number | null> {
  const parsed = JSON.parse(report) as {
    files: { results: { line: number; mode: string; first_divergence_index: number | null }[] }[];
  };
  const verdicts = new Map<number, number | null>();
  for (const r of parsed.files[0]?.results ?? []) {
    if (r.mode === "roundtrip") verdicts.set(r.line, r.first_divergence_index);
  }
  return verdicts;
}

export async function cliWholeProcess(): Promise<void> {
  const runs = Number(process.env.DRIFT_CLI_RUNS ?? 3);
  const targetBytes = Number(process.env.DRIFT_BENCH_MB ?? 20) * 1e6;
  await buildServer();
  const cli = join(root, "lib", "cli.js");
  if (!existsSync(cli)) throw new Error("lib/cli.js was not built");
  const runner = join(mkdtempSync(join(tmpdir(), "drift-cli-bench-")), "run.mjs");
  writeFileSync(
    runner,
    `const cli = await import(${JSON.stringify(cli)});\nprocess.exitCode = await cli.main(process.argv.slice(2));\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), "drift-corpus-"));
  const corpus = join(dir, "real-text.jsonl");
  const tokenizerJson = join(resolveTokenizerDir("qwen3"), "tokenizer.json");
  const made = await writeRealTextCorpus(corpus, NativeTokenizer.fromFile(tokenizerJson), {
    targetBytes,
    seed: 15,
    driftRate: 0.02,
    hard: isHardCorpus(),
  });
  console.log(`CLI corpus: ${describeCorpus(made)}`);
  const oneLine = join(dir, "one-line-llama3.jsonl");
  writeFileSync(oneLine, `${fixtureLines("atropos-rubiks-trimmed.jsonl")[0]}\n`);
  const native = join(root, "bench", "nativeDriftCheck.mjs");

  const variants: Record<string, () => string[]> = {
    "node -e 0": () => ["node", "-e", "0"],
    "native, whole process": () => ["node", native, tokenizerJson, corpus],
    "rollout-lens drift --json": () => ["node", runner, "drift", corpus, "--json"],
    "rollout-lens drift --json --jobs 2": () => [
      "node",
      runner,
      "drift",
      corpus,
      "--json",
      "--jobs",
      "2",
    ],
    "rollout-lens drift, one-line Llama-3 file": () => ["node", runner, "drift", oneLine, "--json"],
  };
  const results = new Map<string, Run[]>(Object.keys(variants).map((k) => [k, []]));
  let mismatches = -1;
  let drifted = 0;
  for (let run = 0; run < runs; run++) {
    const seen = new Map<string, Run>();
    for (const [name, args] of Object.entries(variants)) {
      const r = timed(args(), name.startsWith("rollout-lens") ? [0, 1] : [0]);
      results.get(name)?.push({ ...r, stdout: "" });
      seen.set(name, r);
    }
    // Verdicts row by row: native's against ours (both --jobs), every run.
    const theirs = JSON.parse(seen.get("native, whole process")?.stdout ?? "[]") as [
      number,
      number | null,
    ][];
    for (const name of ["rollout-lens drift --json", "rollout-lens drift --json --jobs 2"]) {
      const ours = ourVerdicts(seen.get(name)?.stdout ?? '{"files":[]}');
      const bad = theirs.filter(([line, v]) => !ours.has(line) || ours.get(line) !== v).length;
      mismatches = Math.max(mismatches, bad + Math.abs(ours.size - theirs.length));
    }
    drifted = theirs.filter(([, v]) => v !== null).length;
  }
  const nativeWall = median((results.get("native, whole process") ?? []).map((r) => r.wall));
  console.log(
    `whole process, ${runs} interleaved runs each: wall s median (min–max), CPU s (user+sys), peak RSS MiB`,
  );
  for (const [name, rs] of results) {
    const wall = rs.map((r) => r.wall);
    const ratio =
      name.includes("one-line") || name === "node -e 0"
        ? ""
        : `, ${(nativeWall / median(wall)).toFixed(2)}x native`;
    console.log(
      `  ${name}: wall ${range(wall)} s${ratio}; CPU ${range(rs.map((r) => r.cpu))} s; peak RSS ${range(
        rs.map((r) => r.rssMiB),
        0,
      )} MiB`,
    );
  }
  console.log(
    `  verdicts vs native, row by row, every run: ${mismatches === 0 ? "identical" : `${mismatches} MISMATCHES`} ` +
      `(${drifted} drifted of ${made.trajectories}); targets: CLI >= 3.5x native on this corpus, one-line file <= 0.6 s`,
  );
}
