import { createDriftTokenizers } from "../drift/driftTokenizers";
import { createFileRegistry } from "../files/fileRegistry";
import { createMcpChecks } from "./mcpChecks";
import { createMcpFiles } from "./mcpFiles";
import type { McpRuntime } from "./toolTypes";

/** What the runtime is built from: the files and options the server was started with. */
export interface RuntimeOptions {
  /** Files and run directories, as `view` takes them. */
  readonly files: readonly string[];
  /** Where `episodes.jsonl` is (listed as the file `episodes`). */
  readonly dataDir: string;
  readonly map?: string;
  /** `--tokenizer`: overrides each file's choice. */
  readonly tokenizer?: string;
}

/** The registry, tokenizers and check cache all of a server's sessions share. */
export function createMcpRuntime(options: RuntimeOptions): McpRuntime & { close(): Promise<void> } {
  const registry = createFileRegistry(options.files, options.dataDir, {
    ...(options.map === undefined ? {} : { map: options.map }),
  });
  const tokenizers = createDriftTokenizers({ jobs: 1 });
  const files = createMcpFiles(registry, tokenizers, options.tokenizer);
  return { files, checks: createMcpChecks(files), close: () => tokenizers.close() };
}
