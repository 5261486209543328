import { PreTrainedTokenizer } from "@huggingface/transformers";
import type { ChatTemplateMessage, ChatTemplateOptions, Tokenizer } from "../core/tokenizer/types";

/** The parsed contents of a model folder's `tokenizer.json` and `tokenizer_config.json`. */
export interface TokenizerFiles {
  readonly tokenizerJson: unknown;
  readonly tokenizerConfig: unknown;
}

interface AddedTokenEntry {
  readonly id: number;
  readonly content: string;
  readonly special: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readAddedTokens(tokenizerJson: Record<string, unknown>): AddedTokenEntry[] {
  const raw = tokenizerJson.added_tokens;
  if (!Array.isArray(raw)) return [];
  const out: AddedTokenEntry[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) continue;
    const { id, content, special } = entry;
    if (typeof id === "number" && typeof content === "string") {
      out.push({ id, content, special: special === true });
    }
  }
  return out;
}

/** GPT-2's byte <-> printable-unicode table used by byte-level BPE vocabularies. */
function byteLevelDecoderTable(): Map<string, number> {
  const bytes: number[] = [];
  for (let b = 33; b <= 126; b++) bytes.push(b);
  for (let b = 161; b <= 172; b++) bytes.push(b);
  for (let b = 174; b <= 255; b++) bytes.push(b);
  const chars = [...bytes];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n);
      n++;
    }
  }
  const table = new Map<string, number>();
  bytes.forEach((b, i) => {
    table.set(String.fromCodePoint(chars[i] ?? b), b);
  });
  return table;
}

function usesByteLevel(tokenizerJson: Record<string, unknown>): boolean {
  return JSON.stringify(tokenizerJson.decoder ?? null).includes('"ByteLevel"');
}

const utf8 = new TextEncoder();

/** Builds a Tokenizer from already-loaded files; works in Node and in the browser. */
export function createHfTokenizer(id: string, files: TokenizerFiles): Tokenizer {
  if (!isRecord(files.tokenizerJson) || !isRecord(files.tokenizerConfig)) {
    throw new Error(
      `tokenizer ${id}: tokenizer.json and tokenizer_config.json must be JSON objects`,
    );
  }
  const tokenizerJson = files.tokenizerJson;
  const tokenizerConfig = files.tokenizerConfig;
  const hf = new PreTrainedTokenizer(tokenizerJson, tokenizerConfig);
  const added = readAddedTokens(tokenizerJson);
  const addedById = new Map(added.map((t) => [t.id, t]));
  const byteLevel = usesByteLevel(tokenizerJson);
  const byteTable = byteLevel ? byteLevelDecoderTable() : undefined;
  const bytesCache = new Map<number, Uint8Array>();
  const vocab = hf.get_vocab();
  let maxId = 0;
  for (const v of vocab.values()) if (v > maxId) maxId = v;
  for (const t of added) if (t.id > maxId) maxId = t.id;

  const eosIds = new Set<number>();
  const eosToken = tokenizerConfig.eos_token;
  const eosContent =
    typeof eosToken === "string" ? eosToken : isRecord(eosToken) ? eosToken.content : undefined;
  if (typeof eosContent === "string") {
    const eosId = hf.convert_tokens_to_ids(eosContent);
    if (typeof eosId === "number") eosIds.add(eosId);
  }
  for (const name of ["<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>"]) {
    const t = added.find((a) => a.content === name);
    if (t) eosIds.add(t.id);
  }

  function pieceToBytes(tokenId: number): Uint8Array {
    const addedToken = addedById.get(tokenId);
    if (addedToken) return utf8.encode(addedToken.content);
    const piece = hf._tokenizer.id_to_token(tokenId);
    if (piece === undefined) return new Uint8Array();
    if (byteTable) {
      const out: number[] = [];
      for (const ch of piece) {
        const b = byteTable.get(ch);
        if (b === undefined) out.push(...utf8.encode(ch));
        else out.push(b);
      }
      return Uint8Array.from(out);
    }
    const byteMatch = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
    if (byteMatch?.[1]) return Uint8Array.of(Number.parseInt(byteMatch[1], 16));
    return utf8.encode(piece.replaceAll("\u2581", " "));
  }

  return {
    id,
    vocabSize: maxId + 1,
    eosTokenIds: [...eosIds],
    encode: (text) => hf.encode(text, { add_special_tokens: false }),
    decode: (ids) =>
      hf.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    tokenBytes(tokenId) {
      let bytes = bytesCache.get(tokenId);
      if (!bytes) {
        bytes = pieceToBytes(tokenId);
        bytesCache.set(tokenId, bytes);
      }
      return bytes;
    },
    isSpecial: (tokenId) => addedById.get(tokenId)?.special === true,
    isAdded: (tokenId) => addedById.has(tokenId),
    applyChatTemplate(messages: readonly ChatTemplateMessage[], options: ChatTemplateOptions = {}) {
      const rendered = hf.apply_chat_template(
        messages.map((m) => ({ ...m })),
        {
          tokenize: false,
          add_generation_prompt: options.addGenerationPrompt ?? false,
          ...(options.tools ? { tools: options.tools.map((t) => ({ ...t })) } : {}),
          ...(options.enableThinking === undefined
            ? {}
            : { enable_thinking: options.enableThinking }),
        },
      );
      if (typeof rendered !== "string")
        throw new Error(`tokenizer ${id}: chat template did not render text`);
      return rendered;
    },
  };
}
