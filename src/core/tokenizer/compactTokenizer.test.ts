import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { readTokenizerFiles } from "../../../test-support/tokenizers";
import { fixtureLines } from "../../test/fixtureFiles";
import { createTokenizerFromCompact } from "../../tokenizer/compactTokenizerFiles";
import { createHfTokenizer } from "../../tokenizer/hfTokenizer";
import { buildCompactTokenizer, readCompactTokenizer } from "./compactFormat";
import { compactUnusableReason, createCompactTokenizer } from "./compactTokenizer";
import type { Tokenizer } from "./types";

/** The library-backed tokenizer and the compact one built from the same folder. */
async function pair(
  name: string,
): Promise<{ hf: Tokenizer; compact: Tokenizer; blob: Uint8Array }> {
  const files = await readTokenizerFiles(name);
  const blob = buildCompactTokenizer(files.tokenizerJson, { test: name });
  const compact = createCompactTokenizer(readCompactTokenizer(blob), {
    id: name,
    tokenizerConfig: files.tokenizerConfig as Record<string, unknown>,
    applyChatTemplate: () => "",
  });
  return { hf: createHfTokenizer(name, files), compact, blob };
}

/** Real text of several kinds: prose and code (the docs), JSON (rollout lines), and oddities. */
function realTexts(): string[] {
  const docs = ["README.md", "docs/architecture.md", "docs/drift.md"].map((p) =>
    readFileSync(p, "utf8"),
  );
  const code = readFileSync("src/core/tokenizer/roundTripFast.ts", "utf8");
  const lines = fixtureLines("atropos-rubiks-trimmed.jsonl").map((l) => l.slice(0, 60_000));
  const odd = [
    "x'ſa 'ſt don't I'LL we'Re 'S",
    "lone \ud800 surrogate \udfff end",
    "e\u0301 cafe\u0301 \u1100\u1161 \u212b \u037e \u1fef NFC changes these",
    "<|im_start|>user\nhi<|im_end|><|eot_id|><|begin_of_text|> <tool_call>{}</tool_call><think>",
    "<|im_end <|eot_id|<| |>  <tool_call <|reserved_special_token_3|>",
    "1234567 12 1 ٣٤٥ 一二三 ⅫⅩ 3.14159",
    "\r\n\r\n  \t\u00a0\u2003\ufeff\u0085 tabs\tand\u3000spaces   ",
    `${"a".repeat(3000)} ${"ab".repeat(2000)} ${"🙂".repeat(500)}`,
    "emoji 🧑‍🚀🏳️‍🌈 ZWJ, CJK 漢字かなカナ, Arabic مرحبا, Hindi नमस्ते, Thai สวัสดี",
  ];
  return [...docs, code, ...lines, ...odd];
}

describe.each(["qwen3", "llama3"])("the compact %s tokenizer", (name) => {
  let hf: Tokenizer;
  let compact: Tokenizer;
  beforeAll(async () => {
    ({ hf, compact } = await pair(name));
  }, 120_000);

  it("has the library tokenizer's vocabulary, token bytes, flags and turn ids", () => {
    expect(compact.vocabSize).toBe(hf.vocabSize);
    expect(compact.eosTokenIds).toEqual(hf.eosTokenIds);
    expect(compact.bosTokenId).toBe(hf.bosTokenId);
    const differ: number[] = [];
    for (let id = 0; id < hf.vocabSize; id++) {
      const a = compact.tokenBytes(id);
      const b = hf.tokenBytes(id);
      const same =
        a.length === b.length &&
        a.every((x, k) => x === b[k]) &&
        compact.isAdded(id) === hf.isAdded(id) &&
        compact.isSpecial(id) === hf.isSpecial(id);
      if (!same) differ.push(id);
    }
    expect(differ).toEqual([]);
    expect(() => compact.tokenBytes(hf.vocabSize)).toThrow(RangeError);
    expect(() => compact.decode([0, -1])).toThrow(
      /token id -1 at index 1 is not in the vocabulary/,
    );
  });

  it("encodes real text (prose, code, JSON, odd Unicode) to the library's ids", () => {
    for (const text of realTexts()) expect(compact.encode(text)).toEqual(hf.encode(text));
  });

  it("decodes to the library's text, also ids that cut characters and added tokens", () => {
    const ids = realTexts().flatMap((t) => hf.encode(t).slice(0, 4000));
    expect(compact.decode(ids)).toBe(hf.decode(ids));
    // Every 5th id shifted: ill-formed UTF-8 runs and stray added tokens.
    const shifted = ids.map((id, i) => (i % 5 === 0 ? (id * 7 + i) % hf.vocabSize : id));
    expect(compact.decode(shifted)).toBe(hf.decode(shifted));
    for (let id = 0; id < hf.vocabSize; id += 97)
      expect(compact.decode([id])).toBe(hf.decode([id]));
  });

  it("agrees with the library on generated text with added-token fragments", () => {
    const pieces = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.string({ unit: "binary", maxLength: 8 }),
      fc.constantFrom(
        "<|im_end|>",
        "<|eot_id|>",
        "<tool_call>",
        "<|im_",
        "'s",
        "'ſ",
        " ",
        "\n\n",
        "123456",
        "e\u0301",
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        const ids = hf.encode(text);
        expect(compact.encode(text)).toEqual(ids);
        if (ids.length > 0) expect(compact.decode(ids)).toBe(hf.decode(ids));
      }),
      { numRuns: 400, seed: name.length },
    );
  });
});

// Through the loader's own path (createTokenizerFromCompact): the family's token names, stop
// tokens and rendering are the library-backed tokenizer's, so drift's template mode renders alike.
describe.each(["qwen3", "llama3", "llama3_1"])("the compact %s tokenizer's family", (name) => {
  let hf: Tokenizer;
  let compact: Tokenizer;
  beforeAll(async () => {
    const files = await readTokenizerFiles(name);
    const blob = buildCompactTokenizer(files.tokenizerJson, { test: name });
    compact = createTokenizerFromCompact(name, { ...files, compact: readCompactTokenizer(blob) });
    hf = createHfTokenizer(name, files);
  }, 120_000);

  it("is the library tokenizer's: family, stop ids, renamed added tokens, rendering", () => {
    expect(compact.family).toBe(name);
    expect(compact.family).toBe(hf.family);
    expect([...compact.eosTokenIds].sort()).toEqual([...hf.eosTokenIds].sort());
    const messages = [
      { role: "system", content: "You add numbers." },
      { role: "user", content: "What is 2+3?" },
      { role: "assistant", content: "It is 5." },
      { role: "user", content: "And 4+4?" },
    ];
    const tools = [
      {
        type: "function" as const,
        function: { name: "add", parameters: { type: "object", properties: {} } },
      },
    ];
    for (const options of [{ addGenerationPrompt: true }, { addGenerationPrompt: false, tools }]) {
      const text = hf.applyChatTemplate(messages, options);
      expect(compact.applyChatTemplate(messages, options)).toBe(text);
      expect(compact.encode(text)).toEqual(hf.encode(text));
    }
    const added = [...Array(hf.vocabSize).keys()].filter((id) => hf.isAdded(id));
    expect(added.map((id) => compact.decode([id]))).toEqual(added.map((id) => hf.decode([id])));
    for (const id of added) expect(compact.tokenBytes(id)).toEqual(hf.tokenBytes(id));
    if (name === "llama3_1") {
      expect(compact.decode([128010, 128008])).toBe("<|python_tag|><|eom_id|>");
      expect(compact.encode("<|python_tag|>{}<|eom_id|>")).toEqual([128010, 6390, 128008]);
      expect(compact.eosTokenIds).toContain(128008);
    }
  });
});

describe("a tokenizer the compact form cannot stand in for", () => {
  it("gets a header-only blob that says why (sentencepiece)", async () => {
    const files = await readTokenizerFiles("src/test/fixtures/sentencepiece-tiny");
    const data = readCompactTokenizer(buildCompactTokenizer(files.tokenizerJson));
    expect(data.header.unusable).toBe("the decoder is not ByteLevel");
    expect(data.pool.length).toBe(0);
    const config = files.tokenizerConfig as Record<string, unknown>;
    expect(compactUnusableReason(data, config)).toBe("the decoder is not ByteLevel");
    expect(() =>
      createCompactTokenizer(data, {
        id: "sp",
        tokenizerConfig: config,
        applyChatTemplate: () => "",
      }),
    ).toThrow("tokenizer sp: the decoder is not ByteLevel");
  });

  it("is refused when the round-trip proof refuses the pipeline, or the config cleans text up", async () => {
    const files = await readTokenizerFiles("qwen3");
    const json = structuredClone(files.tokenizerJson) as { normalizer: unknown };
    json.normalizer = { type: "NFKC" };
    const data = readCompactTokenizer(buildCompactTokenizer(json));
    expect(compactUnusableReason(data, {})).toMatch(/^normalizer .* is not what the fast path/);
    const plain = readCompactTokenizer(buildCompactTokenizer(files.tokenizerJson));
    expect(compactUnusableReason(plain, {})).toBeUndefined();
    expect(compactUnusableReason(plain, { remove_space: true })).toMatch(/remove_space/);
  }, 60_000);
});

describe("the blob", () => {
  it("refuses bytes that are not a blob of this version", () => {
    expect(() => readCompactTokenizer(new Uint8Array(64))).toThrow(/bad magic/);
    const blob = buildCompactTokenizer({ model: { type: "WordPiece" }, decoder: null }, 1);
    const header = new TextDecoder().decode(blob.subarray(16, 16 + (blob[12] ?? 0)));
    expect(JSON.parse(header)).toMatchObject({
      version: 1,
      source: 1,
      unusable: "the model is not BPE",
    });
    const old = blob.slice();
    old.set(new TextEncoder().encode('{"version":0'), 16);
    expect(() => readCompactTokenizer(old)).toThrow(/format version 0, expected 1/);
  });
});
