import { SERVER_DEFAULTS } from "../configDefaults";
import { createDriftTokenizers } from "../drift/driftTokenizers";
import { createFileRegistry } from "../files/fileRegistry";
import { lazyFamilyGuard } from "../rescore/familyGuard";
import { SglangClient } from "../sglang/sglangClient";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createMcpChecks } from "./mcpChecks";
import { createMcpFiles } from "./mcpFiles";
import type { McpRuntime, McpUpstream } from "./toolTypes";

/** What the runtime is built from: the files and options the server was started with. */
export interface RuntimeOptions {
  /** Files and run directories, as `view` takes them. */
  readonly files: readonly string[];
  /** Where `episodes.jsonl` is (listed as the file `episodes`). */
  readonly dataDir: string;
  readonly map?: string;
  /** `--tokenizer`: overrides each file's choice. */
  readonly tokenizer?: string;
  /** SGLang URLs for rescore and branch (none: those tools say how to start with one). */
  readonly sglang?: readonly string[];
  /** Running rescores and branches at once (the server's `--max-episodes`). */
  readonly maxRunning?: number;
}

function createUpstream(urls: readonly string[], maxRunning: number): McpUpstream {
  const client = new SglangClient({ upstreams: [...urls] });
  const catalog = buildTokenizerCatalog(SERVER_DEFAULTS.tokenizer);
  const names = catalog.list.tokenizers.map((t) => t.name);
  let running = 0;
  return {
    urls,
    client,
    guard: lazyFamilyGuard(
      () => client.modelInfo(),
      names,
      (name) => loadTokenizer(catalog.resolve(name) ?? name),
    ),
    hold(n) {
      if (running + n > maxRunning) {
        throw new Error(
          `the running-episode cap is reached (${running} running, ${n} asked, at most ${maxRunning}): try again when some finish`,
        );
      }
      running += n;
      let released = false;
      return () => {
        if (!released) running -= n;
        released = true;
      };
    },
  };
}

/** The registry, tokenizers and check cache all of a server's sessions share. */
export function createMcpRuntime(options: RuntimeOptions): McpRuntime & { close(): Promise<void> } {
  const registry = createFileRegistry(options.files, options.dataDir, {
    ...(options.map === undefined ? {} : { map: options.map }),
  });
  const tokenizers = createDriftTokenizers({ jobs: 1 });
  const files = createMcpFiles(registry, tokenizers, options.tokenizer);
  const urls = options.sglang ?? [];
  const upstream =
    urls.length === 0
      ? undefined
      : createUpstream(urls, options.maxRunning ?? SERVER_DEFAULTS.maxEpisodes);
  return {
    ...{ files, checks: createMcpChecks(files), dataDir: options.dataDir },
    ...(upstream ? { upstream } : {}),
    close: async () => {
      await tokenizers.close();
      await upstream?.client.close();
    },
  };
}
