import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EpisodeManager } from "../server/agent/episodeManager";
import { runEpisode } from "../server/agent/runEpisode";
import { createSglangModelClient } from "../server/agent/sglangModelClient";
import { SglangClient } from "../server/sglang/sglangClient";
import { EpisodeStore } from "../server/store/episodeStore";
import { loadTokenizer } from "../server/tokenizers/loadTokenizer";
import { createToolRegistry } from "../server/tools/registry";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";

// Opt-in soak: LOAD=1 npm run bench -- load. 256 episodes kept in flight against the simulator for
// LOAD_SECONDS (default 600); prints throughput, p50/p99 model-turn latency and memory at start and
// end. Finished episodes must not pile up: the manager keeps only `keepFinished` of them.
const CONCURRENCY = Number(process.env.LOAD_CONCURRENCY ?? 256);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 600);
const KEEP_FINISHED = 200;
const here = dirname(fileURLToPath(import.meta.url));

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function heap(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

export default async function loadBench() {
  if (process.env.LOAD !== "1") {
    console.log("skipped (opt-in): LOAD=1 [LOAD_SECONDS=600] npm run bench -- load");
    return;
  }
  // The simulator runs in its own process: its prefix cache (up to 2M trie nodes by design) would
  // otherwise be counted as the server's memory.
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const sim = spawn(
    process.execPath,
    [
      join(here, "../bin/rollout-lens.mjs"),
      "sim",
      "--port",
      String(port),
      "--token-latency-ms",
      "2",
      "--latency-ms",
      "5",
    ],
    { stdio: "ignore" },
  );
  const simUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${simUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error(`the simulator did not start on ${simUrl}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const sglang = new SglangClient({ upstreams: simUrl });
  const client = await createSglangModelClient(sglang, "simulator");
  const tokenizer = await loadTokenizer("qwen3");
  const registry = createToolRegistry();
  const store = new EpisodeStore(mkdtempSync(join(tmpdir(), "rl-load-")), writeRolloutLens);
  await store.open();
  const turnMs: number[] = [];
  const timed = {
    ...client,
    async generate(request: Parameters<typeof client.generate>[0]) {
      const started = performance.now();
      const turn = await client.generate(request);
      turnMs.push(performance.now() - started);
      return turn;
    },
  };
  let finished = 0;
  const statuses: Record<string, number> = {};
  const manager = new EpisodeManager({
    store,
    maxRunning: CONCURRENCY,
    keepFinished: KEEP_FINISHED,
    run: async (request, sink) => {
      const t = await runEpisode(
        { tokenizer, tokenizerName: "qwen3", client: timed, registry },
        request,
        sink,
      );
      finished++;
      statuses[t.status] = (statuses[t.status] ?? 0) + 1;
      return t;
    },
  });

  const deadline = Date.now() + SECONDS * 1000;
  let started = 0;
  const startOne = () => {
    if (Date.now() >= deadline) return;
    const id = manager.start({ prompt: `What is ${started} * 3 + 4? Use the calculator.` });
    started++;
    const unsubscribe = manager.subscribe(id, 0, (_seq, event) => {
      if (event.type === "end") {
        setImmediate(() => {
          unsubscribe?.();
          startOne();
        });
      }
    });
  };
  const heapStart = heap();
  const rssStart = process.memoryUsage().rss;
  const t0 = performance.now();
  for (let i = 0; i < CONCURRENCY; i++) startOne();
  let heapAfterWarmup = 0;
  const warmupAt = Date.now() + Math.min(30_000, (SECONDS * 1000) / 4);
  while (manager.runningCount > 0 || Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    if (heapAfterWarmup === 0 && Date.now() >= warmupAt) heapAfterWarmup = heap();
  }
  const seconds = (performance.now() - t0) / 1000;
  const heapEnd = heap();
  const sorted = [...turnMs].sort((a, b) => a - b);
  console.log(
    `${CONCURRENCY} concurrent episodes for ${seconds.toFixed(0)} s: ${finished} episodes (${JSON.stringify(statuses)}), ` +
      `${(finished / seconds).toFixed(1)} episodes/s, ${(turnMs.length / seconds).toFixed(1)} turns/s`,
  );
  console.log(
    `turn latency p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms over ${turnMs.length} turns`,
  );
  console.log(
    `heap: start ${mb(heapStart)}, after warm-up ${mb(heapAfterWarmup)}, end ${mb(heapEnd)}; rss start ${mb(rssStart)}, end ${mb(process.memoryUsage().rss)}` +
      `${globalThis.gc ? "" : " (run node with --expose-gc for exact heap figures)"}`,
  );
  const growth = heapEnd - heapAfterWarmup;
  console.log(
    `heap growth after warm-up: ${mb(growth)} over ${finished} finished episodes (${(growth / Math.max(1, finished)).toFixed(0)} B/episode; the manager keeps ${KEEP_FINISHED})`,
  );
  await sglang.close();
  sim.kill("SIGTERM");
}
