/**
 * A Tokenizer on the compact form (compactFormat.ts) that gives exactly what the library-backed
 * one (src/tokenizer/hfTokenizer.ts) gives, for the pipelines the round-trip proof vouches for:
 * encode is the library's own sequence (split out added tokens, NFC, split out normalized added
 * tokens, the Qwen/Llama-3 split regex, byte-level BPE), with the pre-token scanner for the regex
 * and the compact BPE for the model; decode joins token bytes and added-token texts. Loading it
 * is a few typed-array views, so a drift check starts in milliseconds instead of parsing 9 MB.
 */

import type { Family } from "../families/types";
import { createCompactBpe } from "./compactBpe";
import {
  byteLevelBytes,
  byteLevelInverse,
  type CompactAddedToken,
  type CompactTokenizerData,
  FLAG_ADDED,
  FLAG_LITERAL,
  FLAG_PRESENT,
  FLAG_SPECIAL,
} from "./compactFormat";
import { PreTokenScanner } from "./preTokenScanner";
import { proveFastRoundTrip } from "./roundTripPlan";
import { turnEndIds } from "./turnEnds";
import type { Tokenizer } from "./types";
import { utf8Encode } from "./utf8";
import { utf8Decode } from "./utf8Text";

export interface CompactTokenizerOptions {
  /** Human-readable id, e.g. `qwen3` or a folder path. */
  readonly id: string;
  readonly tokenizerConfig: Record<string, unknown>;
  /** The chat template renderer (the template engine lives outside the core). */
  readonly applyChatTemplate: Tokenizer["applyChatTemplate"];
  /** The model family (core/families), when known: its id, and its stop tokens end turns too. */
  readonly family?: Family | undefined;
}

/**
 * Why the compact form cannot stand in for the library with this tokenizer_config.json, or
 * undefined when it can: the blob says why itself, the round-trip proof refuses the pipeline, or
 * the config asks the library for text clean-ups the compact encoder does not make.
 */
export function compactUnusableReason(
  data: CompactTokenizerData,
  tokenizerConfig: Record<string, unknown>,
): string | undefined {
  const { header } = data;
  if (header.unusable !== undefined) return header.unusable;
  const proof = proveFastRoundTrip(header.definition);
  if (!proof.applies) return proof.reason;
  if (tokenizerConfig.remove_space === true) return "tokenizer_config.json sets remove_space";
  if (tokenizerConfig.do_lowercase_and_remove_accent === true) {
    return "tokenizer_config.json sets do_lowercase_and_remove_accent";
  }
  const odd = header.added.find(
    (t) => proof.nfc && t.normalized && t.content.normalize("NFC") !== t.content,
  );
  if (odd) return `added token ${odd.id} changes under NFC`;
  return undefined;
}

/** Leftmost-longest split on a set of strings, as the library's DictionarySplitter. */
function createSplitter(contents: readonly string[]): (text: string) => string[] {
  const words = [...new Set(contents.filter((c) => c.length > 0))];
  if (words.length === 0) return (text) => [text];
  // Alternatives longest first: at the leftmost position the regex then takes the longest word.
  words.sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    words.map((w) => w.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"),
    "g",
  );
  return (text) => {
    const out: string[] = [];
    let start = 0;
    for (const m of text.matchAll(pattern)) {
      const at = m.index ?? 0;
      if (at > start) out.push(text.slice(start, at));
      out.push(m[0]);
      start = at + m[0].length;
    }
    if (start < text.length) out.push(text.slice(start));
    return out;
  };
}

/** How many encoded pre-tokens are kept (then the cache starts over: memory stays bounded). */
const WORD_CACHE_LIMIT = 100_000;

/** Builds a Tokenizer on compact data; throws (naming why) when the compact form cannot serve. */
export function createCompactTokenizer(
  data: CompactTokenizerData,
  options: CompactTokenizerOptions,
): Tokenizer {
  const { id, tokenizerConfig } = options;
  const reason = compactUnusableReason(data, tokenizerConfig);
  if (reason !== undefined) throw new Error(`tokenizer ${id}: ${reason}`);
  const proof = proveFastRoundTrip(data.header.definition);
  if (!proof.applies) throw new Error(`tokenizer ${id}: ${proof.reason}`);
  const { header, offsets, flags, pool } = data;
  const { vocabSize } = header;
  const bpe = createCompactBpe(data);
  // Added tokens the package names wrongly take the family's names (as in hfTokenizer.ts).
  const renames = options.family?.addedTokenNames ?? {};
  const added = header.added.map((t) => {
    const name = renames[t.id];
    return name === undefined ? t : { ...t, content: name };
  });
  const renamedBytes = new Map<number, Uint8Array>();
  for (const t of added)
    if (renames[t.id] !== undefined) renamedBytes.set(t.id, utf8Encode(t.content));
  const encodeText = createEncoder(added, proof.nfc, proof.digitRun, bpe);

  const textOf = new Map<number, string>(header.literals);
  const addedByContent = new Map<string, CompactAddedToken>();
  for (const t of added) {
    textOf.set(t.id, t.content);
    addedByContent.set(t.content, t);
  }
  const isPresent = (tokenId: number) =>
    Number.isInteger(tokenId) && ((flags[tokenId] ?? 0) & FLAG_PRESENT) !== 0;
  const bytesOf = (tokenId: number) =>
    pool.subarray(offsets[tokenId] ?? 0, offsets[tokenId + 1] ?? 0);
  const inverse = byteLevelInverse();
  const idOf = (content: string): number | undefined => {
    const added = addedByContent.get(content);
    if (added) return added.id;
    const bytes = byteLevelBytes(content, inverse);
    if (bytes === undefined) return undefined;
    const found = bpe.lookup(bytes, 0, bytes.length);
    return found < 0 ? undefined : found;
  };
  const isSpecial = (tokenId: number) => ((flags[tokenId] ?? 0) & FLAG_SPECIAL) !== 0;
  const turnEnds = turnEndIds(tokenizerConfig, idOf, isSpecial);
  const eos = new Set<number>(turnEnds.eosTokenIds);
  // The family's own stop tokens (gpt-oss's <|call|>), where this vocabulary has them as added tokens.
  for (const token of options.family?.stopTokens ?? []) {
    const added = addedByContent.get(token.text);
    if (added) eos.add(added.id);
  }
  const eosTokenIds = [...eos];
  const { bosTokenId } = turnEnds;

  return {
    id,
    vocabSize,
    eosTokenIds,
    bosTokenId,
    encode: encodeText,
    decode(ids) {
      if (ids.length === 0) return "";
      let total = 0;
      ids.forEach((tokenId, i) => {
        if (!isPresent(tokenId)) {
          throw new RangeError(
            `tokenizer ${id}: token id ${tokenId} at index ${i} is not in the vocabulary (size ${vocabSize})`,
          );
        }
        total += (offsets[tokenId + 1] ?? 0) - (offsets[tokenId] ?? 0);
      });
      // Runs of byte pieces are decoded together (a character may span tokens); literal
      // tokens (added ones) are written as their text, as the library's ByteLevel decoder does.
      const parts: string[] = [];
      const buf = new Uint8Array(total);
      let used = 0;
      for (const tokenId of ids) {
        if ((flags[tokenId] ?? 0) & FLAG_LITERAL) {
          if (used > 0) parts.push(utf8Decode(buf, 0, used));
          used = 0;
          parts.push(textOf.get(tokenId) ?? "");
        } else {
          buf.set(bytesOf(tokenId), used);
          used += (offsets[tokenId + 1] ?? 0) - (offsets[tokenId] ?? 0);
        }
      }
      if (used > 0) parts.push(utf8Decode(buf, 0, used));
      return parts.join("");
    },
    tokenBytes(tokenId) {
      if (!isPresent(tokenId)) {
        throw new RangeError(
          `tokenizer ${id}: token id ${tokenId} is not in the vocabulary (size ${vocabSize})`,
        );
      }
      return renamedBytes.get(tokenId) ?? bytesOf(tokenId);
    },
    isSpecial,
    isAdded: (tokenId) => ((flags[tokenId] ?? 0) & FLAG_ADDED) !== 0,
    applyChatTemplate: options.applyChatTemplate,
    ...(options.family ? { family: options.family.id } : {}),
    pipeline: {
      definition: header.definition,
      encodeWord: (bytes) => bpe.encode(bytes, 0, bytes.length),
    },
  };
}

/**
 * The library's `encode_text` for a vouched pipeline: added tokens that are matched on raw text
 * split first, then each other section is NFC-normalized (when the pipeline says so), normalized
 * added tokens split out, and the rest pre-tokenized and byte-pair encoded.
 */
function createEncoder(
  added: readonly CompactAddedToken[],
  nfc: boolean,
  digitRun: number,
  bpe: ReturnType<typeof createCompactBpe>,
): (text: string) => number[] {
  const addedIds = new Map<string, number>();
  const raw: string[] = [];
  const normalized: string[] = [];
  for (const t of added) {
    addedIds.set(t.content, t.id);
    if (t.normalized && nfc) {
      const content = t.content.normalize("NFC");
      addedIds.set(content, t.id);
      normalized.push(content);
    } else raw.push(t.content);
  }
  const splitRaw = createSplitter(raw);
  const splitNormalized = createSplitter(normalized);
  let cache = new Map<string, number[]>();
  const ordinary = (text: string, out: number[]) => {
    const bytes = utf8Encode(text);
    const scanner = new PreTokenScanner(bytes, bytes.length, digitRun, true);
    for (let p = 0; p < bytes.length; ) {
      const q = scanner.next(p);
      // Well-formed UTF-8 (utf8Encode wrote it) always scans.
      if (q <= p) throw new Error("compact tokenizer: the pre-token scanner failed");
      let key = "";
      for (let k = p; k < q; k++) key += String.fromCharCode(bytes[k] ?? 0);
      let ids = cache.get(key);
      if (ids === undefined) {
        ids = bpe.encode(bytes, p, q);
        if (cache.size >= WORD_CACHE_LIMIT) cache = new Map();
        cache.set(key, ids);
      }
      for (const tokenId of ids) out.push(tokenId);
      p = q;
    }
  };
  return (text) => {
    const out: number[] = [];
    for (const section of splitRaw(text)) {
      if (section.length === 0) continue;
      const sectionId = addedIds.get(section);
      if (sectionId !== undefined) {
        out.push(sectionId);
        continue;
      }
      const normal = nfc ? section.normalize("NFC") : section;
      for (const part of splitNormalized(normal)) {
        if (part.length === 0) continue;
        const partId = addedIds.get(part);
        if (partId !== undefined) out.push(partId);
        else ordinary(part, out);
      }
    }
    return out;
  };
}
