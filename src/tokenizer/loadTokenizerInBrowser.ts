import { readCompactTokenizer } from "../core/tokenizer/compactFormat";
import type { Tokenizer } from "../core/tokenizer/types";
import type { TokenizerFileName } from "../core/tokenizer/wire";
import { usableCompactTokenizer } from "./compactTokenizerFiles";
import { createHfTokenizer } from "./hfTokenizer";

export type FetchLike = (url: string) => Promise<Response>;

/** Where the server publishes tokenizer files (see server/routes/tokenizers.ts). */
export const TOKENIZERS_API = "/api/tokenizers";

async function fetchFile(
  fetchImpl: FetchLike,
  name: string,
  file: TokenizerFileName,
): Promise<string | undefined> {
  const url = `${TOKENIZERS_API}/${encodeURIComponent(name)}/${file}`;
  let res: Response;
  try {
    res = await fetchImpl(url);
  } catch (error) {
    throw new Error(
      `tokenizer ${name}: GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // The optional template: 204 when the folder has none (a server before that answered 404).
  if ((res.status === 204 || res.status === 404) && file === "chat_template.jinja")
    return undefined;
  if (!res.ok)
    throw new Error(`tokenizer ${name}: GET ${url} answered ${res.status} ${res.statusText}`);
  return res.text();
}

function parseJson(name: string, file: TokenizerFileName, text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch (error) {
    throw new Error(
      `tokenizer ${name}: ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Loads a tokenizer the server publishes, by name. Only our own server is asked: there is no
 * model-hub fallback, and the HF libraries used never fetch on their own.
 */
export async function loadTokenizerInBrowser(
  name: string,
  fetchImpl: FetchLike = (url) => fetch(url),
): Promise<Tokenizer> {
  const [tokenizerJson, tokenizerConfig, chatTemplate] = await Promise.all([
    fetchFile(fetchImpl, name, "tokenizer.json"),
    fetchFile(fetchImpl, name, "tokenizer_config.json"),
    fetchFile(fetchImpl, name, "chat_template.jinja"),
  ]);
  const files = {
    tokenizerJson: parseJson(name, "tokenizer.json", tokenizerJson),
    tokenizerConfig: parseJson(name, "tokenizer_config.json", tokenizerConfig),
  };
  return createHfTokenizer(name, chatTemplate === undefined ? files : { ...files, chatTemplate });
}

/**
 * The tokenizer the browser's drift workers check with: the compact form the server publishes
 * (`GET /api/tokenizers/:name/compact`, docs/drift.md), a few MB of typed arrays instead of
 * parsing tokenizer.json and building the library's BPE; the library-backed tokenizer when the
 * compact form cannot stand in for it, or the server has none. Same ids and text either way.
 */
export async function loadDriftTokenizerInBrowser(
  name: string,
  fetchImpl: FetchLike = (url) => fetch(url),
): Promise<Tokenizer> {
  const url = `${TOKENIZERS_API}/${encodeURIComponent(name)}/compact`;
  const [compactResponse, config, chatTemplate] = await Promise.all([
    fetchImpl(url).catch(() => undefined),
    fetchFile(fetchImpl, name, "tokenizer_config.json"),
    fetchFile(fetchImpl, name, "chat_template.jinja"),
  ]);
  const tokenizerConfig = parseJson(name, "tokenizer_config.json", config);
  if (compactResponse?.ok) {
    const compact = readCompactTokenizer(new Uint8Array(await compactResponse.arrayBuffer()));
    const template = chatTemplate === undefined ? {} : { chatTemplate };
    const tok = usableCompactTokenizer(name, { compact, tokenizerConfig, ...template });
    if (tok) return tok;
  }
  return loadTokenizerInBrowser(name, fetchImpl);
}
