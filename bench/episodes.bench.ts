import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EpisodeManager } from "../server/agent/episodeManager";
import type { ModelClient, ModelTurn } from "../server/agent/modelClient";
import { runEpisode } from "../server/agent/runEpisode";
import { createSglangModelClient } from "../server/agent/sglangModelClient";
import { SglangClient } from "../server/sglang/sglangClient";
import { EpisodeStore } from "../server/store/episodeStore";
import { loadTokenizer } from "../server/tokenizers/loadTokenizer";
import { createToolRegistry } from "../server/tools/registry";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import type { Tokenizer } from "../src/core/tokenizer/types";

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

async function newManager(tokenizer: Tokenizer, client: ModelClient, maxRunning: number) {
  const data = mkdtempSync(join(tmpdir(), "rl-bench-episodes-"));
  const store = new EpisodeStore(data, writeRolloutLens);
  await store.open();
  const registry = createToolRegistry();
  const manager = new EpisodeManager({
    store,
    maxRunning,
    run: (request, sink) =>
      runEpisode({ tokenizer, tokenizerName: "qwen3", client, registry }, request, sink),
  });
  return { manager, data };
}

function waitForEnd(manager: EpisodeManager, id: string): Promise<void> {
  return new Promise((resolve) => {
    manager.subscribe(id, 0, (_seq, event) => {
      if (event.type === "end") resolve();
    });
  });
}

/**
 * Ledger cost per turn: a 50-turn episode of ~32k tokens against an instant in-process upstream.
 * Server-side time of turn k = from the upstream's answer to turn k until the request of turn k+1
 * (decode, parse, tool, template suffix, ledger append, events, journal write). Target: turn 50 <=
 * 1.5x turn 1.
 */
async function ledgerCostPerTurn(tokenizer: Tokenizer) {
  const turns = 50;
  const filler = tokenizer.encode(" The quick brown fox jumps over the lazy dog.".repeat(60));
  const call = tokenizer.encode(
    '\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n</tool_call><|im_end|>',
  );
  const body = [...filler.slice(0, 600), ...call];
  const answer = [...filler.slice(0, 600), ...tokenizer.encode("<|im_end|>")];
  const runs: number[][] = [];
  let totalTokens = 0;
  for (let run = 0; run < 7; run++) {
    const returned: number[] = [];
    const called: number[] = [];
    let n = 0;
    const client: ModelClient = {
      upstream: "instant",
      model: "instant",
      async generate(request): Promise<ModelTurn> {
        called.push(performance.now());
        n++;
        const outputIds = n < turns ? body : answer;
        totalTokens = request.inputIds.length + outputIds.length;
        const turn: ModelTurn = {
          rid: `r${n}`,
          outputIds,
          logprobs: outputIds.map((_, i) => -0.01 * (i % 7)),
          finishReason: { type: "stop", matched: 151645 },
        };
        returned.push(performance.now());
        return turn;
      },
    };
    const { manager, data } = await newManager(tokenizer, client, 1);
    const id = manager.start({ prompt: "Compute things.", max_iterations: turns + 1 });
    await waitForEnd(manager, id);
    const ended = performance.now();
    const perTurn = returned.map((t, k) => (called[k + 1] ?? ended) - t);
    runs.push(perTurn);
    rmSync(data, { recursive: true, force: true });
  }
  const turn1 = median(runs.slice(1).map((r) => r[0] ?? Number.NaN));
  const turnLast = median(runs.slice(1).map((r) => r.at(-2) ?? Number.NaN));
  console.log(
    `episode: ${turns} turns, ${totalTokens} tokens at the end (median of 6 runs after a warm-up)`,
  );
  console.log(
    `server time of turn 1: ${turn1.toFixed(2)} ms; of turn ${turns - 1} (last with a tool call): ${turnLast.toFixed(2)} ms`,
  );
  console.log(`ratio late/first: ${(turnLast / turn1).toFixed(2)} (target <= 1.5)`);
}

async function startSimProcess(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["bin/rollout-lens.mjs", "sim", "--port", String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes(String(port))) resolve();
    });
    child.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return child;
}

/** Server CPU per turn with 64 concurrent episodes vs one at a time, the simulator in its own process. */
async function concurrentCpuPerTurn(tokenizer: Tokenizer) {
  const port = 30_571;
  const sim = await startSimProcess(port);
  try {
    const sglang = new SglangClient({ upstreams: `http://127.0.0.1:${port}` });
    const client = await createSglangModelClient(sglang, "simulator");
    let turns = 0;
    const counting: ModelClient = {
      ...client,
      generate: (request) => {
        turns++;
        return client.generate(request);
      },
    };
    const measure = async (episodes: number, concurrency: number) => {
      const { manager, data } = await newManager(tokenizer, counting, concurrency);
      turns = 0;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let done = 0; done < episodes; done += concurrency) {
        const ids = Array.from({ length: Math.min(concurrency, episodes - done) }, (_, i) =>
          manager.start({ prompt: `What is ${12 + i}*${7 + done}?`, policy: "calculator" }),
        );
        await Promise.all(ids.map((id) => waitForEnd(manager, id)));
      }
      const cpu = process.cpuUsage(cpu0);
      const wall = performance.now() - t0;
      rmSync(data, { recursive: true, force: true });
      return { perTurnMs: (cpu.user + cpu.system) / 1000 / turns, turns, wall };
    };
    await measure(8, 1); // warm-up
    const single = await measure(32, 1);
    const many = await measure(128, 64);
    console.log(
      `one at a time: ${single.turns} turns, server CPU ${single.perTurnMs.toFixed(2)} ms/turn, ${(single.turns / (single.wall / 1000)).toFixed(0)} turns/s`,
    );
    console.log(
      `64 concurrent: ${many.turns} turns, server CPU ${many.perTurnMs.toFixed(2)} ms/turn, ${(many.turns / (many.wall / 1000)).toFixed(0)} turns/s`,
    );
    console.log(
      `ratio CPU per turn 64-concurrent/single: ${(many.perTurnMs / single.perTurnMs).toFixed(2)} (target <= 1.3)`,
    );
    await sglang.close();
  } finally {
    sim.kill();
  }
}

export default async function episodesBench() {
  const tokenizer = await loadTokenizer("qwen3");
  await ledgerCostPerTurn(tokenizer);
  await concurrentCpuPerTurn(tokenizer);
}
