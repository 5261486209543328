import type { Tokenizer } from "../../src/core/tokenizer/types";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import { createDriftPool, type DriftPool } from "./driftPool";

/** One tokenizer, ready to check drift with. */
export interface DriftEngine {
  readonly tokenizer: Tokenizer;
  /** When set, trajectories are checked on these worker threads (in batches, order kept). */
  readonly pool?: DriftPool;
}

/** The tokenizers a drift run may choose from, each loaded on first use. */
export interface DriftTokenizers {
  /** Names `chooseTokenizer` may pick (a record naming one of them, or its family). */
  readonly names: readonly string[];
  /** The choice when neither the record nor the ids say. */
  readonly fallback: string;
  /** The engine for a name or a tokenizer folder path, loaded once. */
  load(name: string): Promise<DriftEngine>;
  close(): Promise<void>;
}

/**
 * The server's catalog with its default configuration (the bundled `qwen3` and `llama3`, the
 * optional families whose package is installed, default `qwen3`), so the CLI chooses as the
 * browser does. Each tokenizer loads (its compact form, tens of ms) only when a file needs it;
 * with `jobs > 1` each gets its own worker pool.
 */
export function createDriftTokenizers(options: { readonly jobs: number }): DriftTokenizers {
  const catalog = buildTokenizerCatalog("qwen3");
  const engines = new Map<string, Promise<DriftEngine>>();
  const pools: DriftPool[] = [];
  return {
    names: catalog.list.tokenizers.map((t) => t.name),
    fallback: catalog.list.default,
    load(name) {
      let engine = engines.get(name);
      if (!engine) {
        const source = catalog.resolve(name) ?? name;
        engine = (async () => {
          const tokenizer = await loadDriftTokenizer(source);
          // Each worker loads its own tokenizer and starts a thread: worth it for big files only.
          const pool = options.jobs > 1 ? createDriftPool(source, options.jobs) : undefined;
          if (pool) pools.push(pool);
          return { tokenizer, ...(pool ? { pool } : {}) };
        })();
        engines.set(name, engine);
      }
      return engine;
    },
    async close() {
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}

/** A fixed tokenizer for every file and trajectory (tests, embedders with a tokenizer at hand). */
export function fixedDriftTokenizer(engine: DriftEngine): DriftTokenizers {
  const name = engine.tokenizer.id;
  return {
    names: [name],
    fallback: name,
    load: async () => engine,
    close: async () => {},
  };
}
