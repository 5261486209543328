import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Hono } from "hono";
import { TOKENIZER_FILES, type TokenizerFileName } from "../../src/core/tokenizer/wire";
import type { ServerConfig } from "../config";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { servedCompactBlob } from "../tokenizers/compactTokenizers";
import { resolveTokenizerDir } from "../tokenizers/loadTokenizer";

function isTokenizerFile(name: string): name is TokenizerFileName {
  return TOKENIZER_FILES.some((f) => f === name);
}

/** The file a tokenizer folder may lack: 204 No Content then, not 404. */
const OPTIONAL_FILE: TokenizerFileName = "chat_template.jinja";

const CONTENT_TYPES: Readonly<Record<TokenizerFileName, string>> = {
  "tokenizer.json": "application/json",
  "tokenizer_config.json": "application/json",
  "chat_template.jinja": "text/plain; charset=utf-8",
};

/**
 * `GET /api/tokenizers`, `GET /api/tokenizers/:name/compact` and `GET /api/tokenizers/:name/:file`.
 * Names come from the catalog and
 * files from a fixed list, so no request text is ever joined into a path (no traversal).
 */
export function tokenizerRoutes(config: Pick<ServerConfig, "tokenizer">) {
  const catalog = buildTokenizerCatalog(config.tokenizer);
  const app = new Hono();
  app.get("/", (c) => c.json(catalog.list));
  // The compact form the browser's drift workers load (docs/drift.md): from lib/ for a bundled
  // tokenizer, else from the cache or derived once, then held in memory while its source holds;
  // the name goes through the catalog as below.
  app.get("/:name/compact", async (c) => {
    const { name } = c.req.param();
    const source = catalog.resolve(name);
    if (source === undefined) return c.json({ error: `unknown tokenizer: ${name}` }, 404);
    let blob: Uint8Array;
    try {
      blob = await servedCompactBlob(source);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message.includes("missing file")) return c.json({ error: message }, 404);
      throw error;
    }
    // The held bytes themselves, not a copy per request (a plain ArrayBuffer view: readFile's or the builder's).
    return c.body(blob as Uint8Array<ArrayBuffer>, 200, {
      "content-type": "application/octet-stream",
    });
  });
  app.get("/:name/:file", async (c) => {
    const { name, file } = c.req.param();
    const source = catalog.resolve(name);
    if (source === undefined) return c.json({ error: `unknown tokenizer: ${name}` }, 404);
    if (!isTokenizerFile(file)) return c.json({ error: `not a tokenizer file: ${file}` }, 404);
    let body: Buffer;
    try {
      body = await readFile(join(resolveTokenizerDir(source), file));
    } catch (error) {
      const missing = error instanceof Error && "code" in error && error.code === "ENOENT";
      // The optional template (newer HF folders) answers "none" without an error status, which
      // the browser would log on every trajectory page (docs/keyboard-and-urls.md).
      if (missing && file === OPTIONAL_FILE) return c.body(null, 204);
      if (missing) return c.json({ error: `tokenizer ${name} has no ${file}` }, 404);
      throw error;
    }
    return c.body(new Uint8Array(body), 200, { "content-type": CONTENT_TYPES[file] });
  });
  return app;
}
