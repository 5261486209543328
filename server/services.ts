import { familyById } from "../src/core/families/families";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import type { Tokenizer } from "../src/core/tokenizer/types";
import { EpisodeManager } from "./agent/episodeManager";
import type { ModelClient } from "./agent/modelClient";
import { type RunnerDeps, runEpisode } from "./agent/runEpisode";
import { createSglangModelClient } from "./agent/sglangModelClient";
import { type BisectServices, createBisectServices } from "./bisect/bisectServices";
import type { ServerConfig } from "./config";
import { SglangClient, type SglangClientOptions } from "./sglang/sglangClient";
import type { SimOptionsInput } from "./sim/options";
import { type RunningSim, startSim } from "./sim/start";
import { EpisodeIndex } from "./store/episodeIndex";
import { EpisodeStore } from "./store/episodeStore";
import { buildTokenizerCatalog, type TokenizerCatalog } from "./tokenizers/catalog";
import { describeTokenizerFamily, loadTokenizer } from "./tokenizers/loadTokenizer";
import { createOffThreadEncoder } from "./tokenizers/offThreadEncoder";
import { createToolRegistry, loadToolModule, type ToolRegistry } from "./tools/registry";

/** Everything the routes use, built once at startup from the config. */
export interface Services {
  readonly config: ServerConfig;
  readonly tokenizer: Tokenizer;
  readonly client: ModelClient;
  readonly sglang: SglangClient;
  /** The URLs `sglang` talks to: the `--sglang` servers, or the embedded simulator's. */
  readonly upstreamUrls: readonly string[];
  readonly isSimulated: boolean;
  readonly registry: ToolRegistry;
  readonly store: EpisodeStore;
  readonly index: EpisodeIndex;
  readonly manager: EpisodeManager;
  /** What every episode runs with (branches too) unless it names another tokenizer. */
  readonly runner: RunnerDeps;
  /** The tokenizers an episode may name (`GET /api/tokenizers`). */
  readonly tokenizers: TokenizerCatalog;
  /**
   * The runner for an episode that names a catalog tokenizer (loaded on first use, then cached);
   * the default runner for none. Rejects a name the catalog lacks.
   */
  runnerFor(name: string | undefined): Promise<RunnerDeps>;
  /** The bisect lab's upstreams a and b and their family checks (docs/bisect.md#in-the-app). */
  readonly bisect: BisectServices;
  close(): Promise<void>;
}

/**
 * The embedded simulator: each request's family, and streams of deltas (SGLang's
 * `--incremental-streaming-output`), since it runs in this process: cumulative chunks would cost
 * the server O(n²) in a turn's tokens (docs/sglang.md, "Streaming").
 */
export function embeddedSimOptions(tokenizer: string): SimOptionsInput {
  return { tokenizer, isTokenizerPerRequest: true, streamMode: "delta" };
}

/** Loads the tokenizer and tools, opens the data directory, and connects to SGLang (or the simulator). */
export async function createServices(
  config: ServerConfig,
  hooks: {
    /** Wraps the model client (tests record every request and response through it). */
    readonly wrapClient?: (client: ModelClient) => ModelClient;
    /** Overrides of the SGLang client settings (tests shorten backoff and health checks). */
    readonly sglang?: Partial<SglangClientOptions>;
  } = {},
): Promise<Services> {
  const tokenizer = await loadTokenizer(config.tokenizer);
  // A local folder's family decides the live episodes' suffix and tool calls: say which it is.
  if (familyById(config.tokenizer) === undefined) {
    console.warn(await describeTokenizerFamily(config.tokenizer));
  }
  const extraTools = (await Promise.all(config.tools.map((path) => loadToolModule(path)))).flat();
  const registry = createToolRegistry(extraTools);

  let sim: RunningSim | undefined;
  let urls = config.sglang;
  if (urls.length === 0) {
    // Episodes may name any catalog tokenizer: the simulator serves each request's family.
    sim = await startSim({ port: 0 }, embeddedSimOptions(config.tokenizer));
    urls = [sim.url];
  }
  const sglang = new SglangClient({
    upstreams: urls,
    requestTimeoutMs: config.sglangTimeoutMs,
    streamIdleTimeoutMs: Math.min(config.sglangTimeoutMs, 120_000),
    retry: { maxAttempts: config.sglangAttempts },
    ...hooks.sglang,
  });
  const baseClient = await createSglangModelClient(sglang, sim ? "simulator" : urls.join(", "));
  const client = hooks.wrapClient ? hooks.wrapClient(baseClient) : baseClient;

  const store = new EpisodeStore(config.data, writeRolloutLens);
  const recovery = await store.open();
  if (recovery.recovered.length > 0) {
    console.warn(`recovered ${recovery.recovered.length} interrupted episode(s) as aborted`);
  }
  if (recovery.tornBytes > 0) {
    console.warn(
      `${store.episodesPath}: a torn last line (${recovery.tornBytes} bytes) was moved to ${recovery.tornPath}`,
    );
  }
  const index = new EpisodeIndex(store);
  await index.load();
  for (const problem of index.problems) console.warn(problem);

  const encoder = createOffThreadEncoder();
  const runner: RunnerDeps = {
    tokenizer,
    tokenizerName: config.tokenizer,
    client,
    registry,
    encodeOffThread: encoder.encode,
  };
  const tokenizers = buildTokenizerCatalog(config.tokenizer);
  const runnerFor = async (name: string | undefined): Promise<RunnerDeps> => {
    if (name === undefined || name === tokenizers.list.default) return runner;
    const source = tokenizers.resolve(name);
    if (source === undefined) throw new Error(`unknown tokenizer "${name}"`);
    // loadTokenizer loads each tokenizer once per process.
    return { ...runner, tokenizer: await loadTokenizer(source), tokenizerName: source };
  };
  const manager = new EpisodeManager({
    store,
    maxRunning: config.maxEpisodes,
    onStored: (trajectory, at) => index.add(trajectory, at),
    run: async (request, sink) => runEpisode(await runnerFor(request.tokenizer), request, sink),
  });

  const bisect = createBisectServices(
    urls,
    sglang,
    tokenizers.list.tokenizers.map((t) => t.name),
    (name) => loadTokenizer(tokenizers.resolve(name) ?? name),
  );
  return {
    config,
    tokenizer,
    client,
    sglang,
    upstreamUrls: urls,
    isSimulated: sim !== undefined,
    registry,
    store,
    index,
    manager,
    runner,
    tokenizers,
    runnerFor,
    bisect,
    async close() {
      await manager.shutdown();
      await bisect.close();
      await sglang.close();
      await sim?.close();
      await encoder.close();
    },
  };
}
