import { isRecord } from "../core/isRecord";
import type { CompactTokenizerData } from "../core/tokenizer/compactFormat";
import { compactUnusableReason, createCompactTokenizer } from "../core/tokenizer/compactTokenizer";
import type { Tokenizer } from "../core/tokenizer/types";
import { createChatTemplateRenderer } from "./chatTemplate";
import { familyOfTokenizer, familyRenderer } from "./tokenizerFamily";

/** A compact tokenizer (core/tokenizer/compactFormat.ts, read) with the folder's small files. */
export interface CompactTokenizerFiles {
  readonly compact: CompactTokenizerData;
  readonly tokenizerConfig: unknown;
  readonly chatTemplate?: string;
}

/**
 * The Tokenizer on a compact blob, with the chat template renderer the library-backed one uses;
 * works in Node, in the browser and in workers. Throws, naming why, when the compact form cannot
 * stand in for the library (the caller then builds the library-backed tokenizer).
 */
export function createTokenizerFromCompact(id: string, files: CompactTokenizerFiles): Tokenizer {
  const config = files.tokenizerConfig;
  if (!isRecord(config)) {
    throw new Error(`tokenizer ${id}: tokenizer_config.json must be a JSON object`);
  }
  // The same family and renderer as the library-backed tokenizer (hfTokenizer.ts) of this folder.
  const family = familyOfTokenizer(id, config, files.chatTemplate);
  return createCompactTokenizer(files.compact, {
    id,
    tokenizerConfig: config,
    applyChatTemplate:
      familyRenderer(family, config, files.chatTemplate) ??
      createChatTemplateRenderer(id, config, files.chatTemplate),
    family,
  });
}

/**
 * The one choice between the compact and the library-backed tokenizer (server and browser drift
 * checks): the compact one when the folder's tokenizer_config.json is an object and the compact
 * form can stand in for the library (compactUnusableReason); else undefined, and the caller builds
 * the library-backed one from the same files.
 */
export function usableCompactTokenizer(
  id: string,
  files: CompactTokenizerFiles,
): Tokenizer | undefined {
  const { compact, tokenizerConfig } = files;
  if (!isRecord(tokenizerConfig) || compactUnusableReason(compact, tokenizerConfig))
    return undefined;
  return createTokenizerFromCompact(id, files);
}
