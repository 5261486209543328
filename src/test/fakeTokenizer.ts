import type { ChatTemplateMessage, ChatTemplateOptions, Tokenizer } from "../core/tokenizer/types";

const WORDS = ["Hello", " world", "\n", "<think>", "</think>", " the", "日本"];
const ADDED: readonly { readonly content: string; readonly special: boolean }[] = [
  { content: "<|im_start|>", special: true },
  { content: "<|im_end|>", special: true },
  { content: "<|endoftext|>", special: true },
  { content: "<tool_call>", special: false },
  { content: "</tool_call>", special: false },
];

export const FAKE_WORD_BASE = 256;
export const FAKE_ADDED_BASE = FAKE_WORD_BASE + WORDS.length;
export const FAKE_IM_END = FAKE_ADDED_BASE + 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function templateText(
  messages: readonly ChatTemplateMessage[],
  options: ChatTemplateOptions,
): string {
  let text = "";
  if (options.tools && options.tools.length > 0) {
    text += `<|im_start|>system\n# Tools\n${options.tools.map((t) => JSON.stringify(t)).join("\n")}<|im_end|>\n`;
  }
  for (const m of messages) text += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
  if (options.addGenerationPrompt) {
    text += "<|im_start|>assistant\n";
    if (options.enableThinking === false) text += "<think>\n\n</think>\n\n";
  }
  return text;
}

/**
 * A tiny tokenizer for core tests. Ids 0-255 are the single bytes (so any text encodes, and
 * multi-byte characters split across tokens), then a few words, then ChatML added tokens. Encoding
 * is greedy longest match over UTF-8 bytes; the chat template is a Qwen-like ChatML.
 */
export function createFakeTokenizer(): Tokenizer {
  const pieces: Uint8Array[] = [];
  for (let b = 0; b < 256; b++) pieces.push(Uint8Array.of(b));
  for (const w of WORDS) pieces.push(encoder.encode(w));
  for (const a of ADDED) pieces.push(encoder.encode(a.content));
  const vocabSize = pieces.length;

  function encodeBytes(bytes: Uint8Array, out: number[]) {
    let pos = 0;
    while (pos < bytes.length) {
      let best = bytes[pos] ?? 0;
      let bestLength = 1;
      for (let id = FAKE_WORD_BASE; id < FAKE_ADDED_BASE; id++) {
        const piece = pieces[id] ?? new Uint8Array();
        if (piece.length > bestLength && piece.every((b, k) => bytes[pos + k] === b)) {
          best = id;
          bestLength = piece.length;
        }
      }
      out.push(best);
      pos += bestLength;
    }
  }

  function tokenBytes(id: number): Uint8Array {
    const piece = pieces[id];
    if (!piece) throw new RangeError(`fake tokenizer: token id ${id} is not in the vocabulary`);
    return piece;
  }

  return {
    id: "fake",
    vocabSize,
    eosTokenIds: [FAKE_IM_END, FAKE_ADDED_BASE + 2],
    bosTokenId: undefined,
    encode(text) {
      const out: number[] = [];
      const pattern = new RegExp(ADDED.map((a) => a.content.replace(/[|]/g, "\\|")).join("|"), "g");
      let last = 0;
      for (const match of text.matchAll(pattern)) {
        encodeBytes(encoder.encode(text.slice(last, match.index)), out);
        out.push(FAKE_ADDED_BASE + ADDED.findIndex((a) => a.content === match[0]));
        last = match.index + match[0].length;
      }
      encodeBytes(encoder.encode(text.slice(last)), out);
      return out;
    },
    decode: (ids) => decoder.decode(concatBytes(ids.map(tokenBytes))),
    tokenBytes,
    isSpecial: (id) => ADDED[id - FAKE_ADDED_BASE]?.special === true,
    isAdded: (id) => id >= FAKE_ADDED_BASE && id < vocabSize,
    applyChatTemplate: (messages, options = {}) => templateText(messages, options),
  };
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
