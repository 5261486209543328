import { basename } from "node:path";
import type { TokenizerList } from "../../src/core/tokenizer/wire";
import { BUNDLED_TOKENIZERS, installedOptionalTokenizers } from "./loadTokenizer";

/** Public tokenizer name -> what `loadTokenizer`/`resolveTokenizerDir` takes (short name or path). */
export interface TokenizerCatalog {
  readonly list: TokenizerList;
  /** Undefined for any name not in the list: the only way a request reaches the file system. */
  resolve(name: string): string | undefined;
}

/**
 * The bundled tokenizers, the optional families whose package is installed, plus the configured one
 * (a folder path is published by its base name).
 */
export function buildTokenizerCatalog(
  configured: string,
  optional: readonly string[] = installedOptionalTokenizers(),
): TokenizerCatalog {
  const sources = new Map<string, string>();
  const tokenizers: TokenizerList["tokenizers"] = [];
  for (const name of [...Object.keys(BUNDLED_TOKENIZERS), ...optional]) {
    sources.set(name, name);
    tokenizers.push({ name, source: "bundled" });
  }
  let defaultName = configured;
  if (!sources.has(configured)) {
    const base = basename(configured) || "local";
    defaultName = sources.has(base) ? `${base}-local` : base;
    sources.set(defaultName, configured);
    tokenizers.push({ name: defaultName, source: "path" });
  }
  return {
    list: { default: defaultName, tokenizers },
    resolve: (name) => sources.get(name),
  };
}
