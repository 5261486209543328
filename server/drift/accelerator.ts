import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import { z } from "zod";
import type { RoundTripAccelerator } from "../../src/core/drift/detectDrift";
import {
  createRoundTripAccelerator,
  type FastRoundTripSpec,
} from "../../src/core/drift/roundTripFast";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { readTokenizerFiles } from "../tokenizers/loadTokenizer";

/** Split regexes the core scanner reproduces exactly, with their longest digit run. */
const KNOWN_SPLITS: Readonly<Record<string, number>> = {
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": 1,
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": 3,
};

/** The parts of tokenizer.json the fast path depends on; anything else means "no fast path". */
const pipelineSchema = z.object({
  normalizer: z.union([z.null(), z.object({ type: z.literal("NFC") })]),
  pre_tokenizer: z.object({
    type: z.literal("Sequence"),
    pretokenizers: z.tuple([
      z.object({
        type: z.literal("Split"),
        pattern: z.object({ Regex: z.string() }),
        behavior: z.literal("Isolated"),
        invert: z.literal(false),
      }),
      z.object({
        type: z.literal("ByteLevel"),
        add_prefix_space: z.literal(false),
        use_regex: z.literal(false),
      }),
    ]),
  }),
  decoder: z.object({ type: z.literal("ByteLevel") }),
  model: z.object({
    type: z.literal("BPE"),
    dropout: z.null().optional(),
    byte_fallback: z.literal(false).optional(),
  }),
  added_tokens: z.array(
    z.object({ lstrip: z.literal(false), rstrip: z.literal(false), single_word: z.literal(false) }),
  ),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** GPT-2 byte -> printable char table, the spelling byte-level BPE vocabularies use. */
function byteToChar(): string[] {
  const table: string[] = new Array(256);
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const direct = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    table[b] = String.fromCodePoint(direct ? b : 256 + shifted++);
  }
  return table;
}

const cache = new WeakMap<Tokenizer, Promise<RoundTripAccelerator | undefined>>();

/**
 * The round-trip fast path for a tokenizer folder (or bundled name), or undefined when its
 * tokenizer.json uses a pipeline the core scanner does not reproduce exactly. Built once per
 * tokenizer (its verdict caches then serve every file).
 */
export function createAcceleratorFor(
  nameOrPath: string,
  tokenizer: Tokenizer,
): Promise<RoundTripAccelerator | undefined> {
  let pending = cache.get(tokenizer);
  if (!pending) {
    pending = buildAccelerator(nameOrPath, tokenizer);
    cache.set(tokenizer, pending);
  }
  return pending;
}

async function buildAccelerator(
  nameOrPath: string,
  tokenizer: Tokenizer,
): Promise<RoundTripAccelerator | undefined> {
  const files = await readTokenizerFiles(nameOrPath);
  const pipeline = pipelineSchema.safeParse(files.tokenizerJson);
  if (!pipeline.success) return undefined;
  const split = pipeline.data.pre_tokenizer.pretokenizers[0].pattern.Regex;
  const digitRun = KNOWN_SPLITS[split];
  if (digitRun === undefined) return undefined;
  const { tokenizerJson, tokenizerConfig } = files;
  if (!isRecord(tokenizerJson) || !isRecord(tokenizerConfig)) return undefined;
  const hf = new HfTokenizer(tokenizerJson, tokenizerConfig);
  const model = hf.model;
  if (!model) return undefined;
  const chars = byteToChar();
  const spec: FastRoundTripSpec = {
    digitRun,
    nfc: pipeline.data.normalizer !== null,
    encodeWord(bytes) {
      let word = "";
      for (const b of bytes) word += chars[b];
      return model([word]).map((piece) => {
        const id = model.tokens_to_ids.get(piece);
        if (id === undefined) throw new Error(`${nameOrPath}: BPE produced unknown piece ${piece}`);
        return id;
      });
    },
  };
  return createRoundTripAccelerator(tokenizer, spec);
}
