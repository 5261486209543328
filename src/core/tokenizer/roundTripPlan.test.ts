import { describe, expect, it } from "vitest";
import { createFakeTokenizer } from "../../test/fakeTokenizer";
import { proveFastRoundTrip, roundTripPlanFor } from "./roundTripPlan";

const QWEN_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const LLAMA3_SPLIT = QWEN_SPLIT.replace("\\p{N}|", "\\p{N}{1,3}|");

/** The pipeline part of a Qwen3-style tokenizer.json, with `patch` applied. */
function definition(patch: (json: Record<string, unknown>) => void = () => {}) {
  const json: Record<string, unknown> = {
    normalizer: { type: "NFC" },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: QWEN_SPLIT }, behavior: "Isolated", invert: false },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: "BPE", dropout: null, byte_fallback: false, vocab: {}, merges: [] },
    added_tokens: [
      { id: 1, content: "<|im_end|>", lstrip: false, rstrip: false, single_word: false },
    ],
  };
  patch(json);
  return json;
}

describe("proveFastRoundTrip", () => {
  it("vouches for the Qwen2/3 pipeline (digit runs of 1, NFC)", () => {
    expect(proveFastRoundTrip(definition())).toEqual({ applies: true, digitRun: 1, nfc: true });
  });

  it("vouches for the Llama-3 pipeline (digit runs of up to 3, no normalizer)", () => {
    const llama = definition((json) => {
      json.normalizer = null;
      const [split] = (json.pre_tokenizer as { pretokenizers: { pattern: object }[] })
        .pretokenizers;
      if (split) split.pattern = { Regex: LLAMA3_SPLIT };
    });
    expect(proveFastRoundTrip(llama)).toEqual({ applies: true, digitRun: 3, nfc: false });
  });

  it.each([
    [
      "another normalizer",
      (j: Record<string, unknown>) => (j.normalizer = { type: "NFKC" }),
      "normalizer",
    ],
    [
      "byte fallback",
      (j: Record<string, unknown>) => (j.model = { type: "BPE", byte_fallback: true }),
      "model.byte_fallback",
    ],
    [
      "a WordPiece model",
      (j: Record<string, unknown>) => (j.model = { type: "WordPiece" }),
      "model.type",
    ],
    [
      "an lstrip added token",
      (j: Record<string, unknown>) =>
        (j.added_tokens = [{ lstrip: true, rstrip: false, single_word: false }]),
      "added_tokens.0.lstrip",
    ],
    [
      "a metaspace pre-tokenizer",
      (j: Record<string, unknown>) => (j.pre_tokenizer = { type: "Metaspace" }),
      "pre_tokenizer",
    ],
    [
      "an unknown split regex",
      (j: Record<string, unknown>) => {
        const [split] = (j.pre_tokenizer as { pretokenizers: { pattern: object }[] }).pretokenizers;
        if (split) split.pattern = { Regex: "\\s+|\\w+" };
      },
      "split regex",
    ],
  ])("refuses %s, naming the field", (_name, patch, field) => {
    const proof = proveFastRoundTrip(definition(patch));
    expect(proof.applies).toBe(false);
    if (!proof.applies) expect(proof.reason).toContain(field);
  });

  it("refuses what is not a tokenizer.json", () => {
    expect(proveFastRoundTrip("tokenizer")).toMatchObject({ applies: false });
    expect(proveFastRoundTrip(null)).toMatchObject({ applies: false });
  });
});

describe("roundTripPlanFor", () => {
  it("takes the exact path, saying why, for a tokenizer with no pipeline to check", () => {
    const fake = createFakeTokenizer();
    const plan = roundTripPlanFor(fake);
    expect(plan).toEqual({
      path: "exact",
      reason: `${fake.id}: no tokenizer.json pipeline to check`,
    });
    expect(roundTripPlanFor(fake)).toBe(plan);
  });

  it("takes the fast path when the pipeline proves it, built once per tokenizer", () => {
    const fake = createFakeTokenizer();
    const words: number[][] = [];
    const tokenizer = {
      ...fake,
      pipeline: {
        definition: definition(),
        encodeWord: (bytes: Uint8Array) => {
          words.push([...bytes]);
          return fake.encode(new TextDecoder().decode(bytes));
        },
      },
    };
    const plan = roundTripPlanFor(tokenizer);
    expect(plan.path).toBe("fast");
    expect(roundTripPlanFor(tokenizer)).toBe(plan);
    const ids = fake.encode("Hello world");
    expect([...(plan.accelerator?.roundTrip(ids) ?? [])]).toEqual(ids);
    expect(words.length).toBeGreaterThan(0);
  });

  it("falls back to the exact path when the accelerator cannot be built", () => {
    const fake = createFakeTokenizer();
    const tokenizer = {
      ...fake,
      // A non-ASCII added token breaks an assumption of the fast path.
      isAdded: (id: number) => id === 0x80,
      pipeline: { definition: definition(), encodeWord: () => [] },
    };
    expect(roundTripPlanFor(tokenizer)).toMatchObject({
      path: "exact",
      reason: expect.stringContaining("not ASCII"),
    });
  });
});
