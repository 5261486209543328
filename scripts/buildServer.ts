// Compiles the server and CLI to JavaScript in lib/ (the installed package runs these, no tsx).
// One bundle per entry with shared chunks, npm packages left as imports (they stay dependencies),
// and every dynamic import its own chunk, so `rollout-lens --help` loads the CLI shell only.
// Every output file lands directly in lib/: server/paths.ts relies on that (`..` is the root).
// Beside the code: the bundled tokenizers' compact form (lib/<name>.tokenizer.bin), so the
// installed drift check loads them in milliseconds instead of parsing tokenizer.json.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { buildBundledCompact } from "../server/tokenizers/compactTokenizers";
import { BUNDLED_TOKENIZERS } from "../server/tokenizers/loadTokenizer";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * Builds into `outdir` (emptied first), with the bundled tokenizers' compact form unless
 * `tokenizers` is false; resolves to esbuild's metafile (inputs of each output).
 */
export async function buildServer(
  outdir = `${root}lib`,
  { tokenizers = true }: { readonly tokenizers?: boolean } = {},
): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      cli: "server/cli.ts",
      "drift.worker": "server/drift/drift.worker.ts",
      "stepStats.worker": "server/files/stepStats.worker.ts",
      "parquetRead.worker": "server/files/parquetRead.worker.ts",
      "scan.worker": "server/scan/scan.worker.ts",
      "encode.worker": "server/tokenizers/encode.worker.ts",
    },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    packages: "external",
    chunkNames: "[name]-[hash]",
    metafile: true,
    logLevel: "warning",
  });
  if (tokenizers) {
    for (const name of Object.keys(BUNDLED_TOKENIZERS)) {
      writeFileSync(join(outdir, `${name}.tokenizer.bin`), await buildBundledCompact(name));
    }
  }
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
