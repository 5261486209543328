import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBpeWordModel } from "../../src/core/tokenizer/bpeWord";
import { byteLevelChars } from "../../src/core/tokenizer/vocabBytes";
import { readTokenizerFiles } from "./loadTokenizer";

const chars = byteLevelChars();
const toWord = (text: string) => {
  let word = "";
  for (const b of Buffer.from(text, "utf8")) word += chars[b];
  return word;
};

/** Pre-token-like pieces of real text: words with a leading space, digit runs, punctuation runs. */
function realWords(): string[] {
  const text = ["README.md", "docs/drift.md", "server/drift/driftFile.ts", "package.json"]
    .map((p) => readFileSync(join(import.meta.dirname, "../..", p), "utf8"))
    .join("\n");
  return [...new Set(text.match(/ ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu) ?? [])];
}

describe.each(["qwen3", "llama3"])("core BPE of one word (%s)", (name) => {
  it("gives the library's pieces on real words and on random bytes", async () => {
    const files = await readTokenizerFiles(name);
    const hf = new HfTokenizer(files.tokenizerJson as object, files.tokenizerConfig as object);
    const model = hf.model as unknown as ((words: string[]) => string[]) & {
      merges: string[][];
      tokens_to_ids: Map<string, number>;
      ignore_merges?: boolean;
    };
    const ours = createBpeWordModel(model.tokens_to_ids, model.merges, {
      ignoreMerges: model.ignore_merges === true,
      symbols: chars,
      onUnknown: (piece) => {
        throw new Error(piece);
      },
    });
    const reference = (word: string) => model([word]).map((p) => model.tokens_to_ids.get(p));
    const words = realWords();
    expect(words.length).toBeGreaterThan(500);
    for (const text of words) {
      const want = reference(toWord(text));
      expect([text, ours.encode(toWord(text))]).toEqual([text, want]);
      expect([text, ours.encodeBytes(Buffer.from(text, "utf8"))]).toEqual([text, want]);
    }
    // Again from the cache.
    for (const text of words.slice(0, 50))
      expect(ours.encode(toWord(text))).toEqual(reference(toWord(text)));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 24 }), (bytes) => {
        let word = "";
        for (const b of bytes) word += chars[b];
        expect(ours.encode(word)).toEqual(reference(word));
        expect(ours.encodeBytes(bytes)).toEqual(reference(word));
      }),
      { numRuns: 400 },
    );
    // Repeated pairs and long runs (merge order matters there).
    for (const text of ["aaaaaaa", " ababab", "0000000", "))))))", "\n\n\n\n", "       x"]) {
      expect(ours.encode(toWord(text))).toEqual(reference(toWord(text)));
      expect(ours.encodeBytes(Buffer.from(text, "utf8"))).toEqual(reference(toWord(text)));
    }
  }, 60_000);
});

describe("core BPE of one word, vocabularies ids cannot mirror", () => {
  const onUnknown = (piece: string): never => {
    throw new Error(`unknown ${piece}`);
  };
  const symbols = ["a", "b", "c", ...Array.from({ length: 253 }, (_, k) => `x${k}`)];
  it("merges by pieces when two pieces share an id (same pieces as the id form would not give)", () => {
    // "a" and "c" share id 0: by ids the pair (c, b) would take (a, b)'s merge.
    const vocab = new Map([
      ["a", 0],
      ["c", 0],
      ["b", 1],
      ["ab", 2],
    ]);
    const model = createBpeWordModel(vocab, [["a", "b"]], { ignoreMerges: false, onUnknown });
    expect(model.encode("ab")).toEqual([2]);
    expect(model.encode("cb")).toEqual([0, 1]);
  });
  it("merges by pieces when a merge's result is not in the vocabulary", () => {
    const vocab = new Map([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["abc", 3],
    ]);
    // "ab" is no piece: only the piece form can pass through it to "abc".
    const merges = [
      ["a", "b"],
      ["ab", "c"],
    ];
    const model = createBpeWordModel(vocab, merges, { ignoreMerges: false, onUnknown, symbols });
    expect(model.encode("abc")).toEqual([3]);
    expect(model.encodeBytes(Uint8Array.from([0, 1, 2]))).toEqual([3]);
    expect(() => model.encode("ab")).toThrow("unknown ab");
  });
  it("falls back word by word when only a merge's result is missing", () => {
    // Every merge's two sides are pieces, so the id table is built; "ab" itself is no piece.
    const vocab = new Map([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["bc", 3],
    ]);
    const merges = [
      ["a", "b"],
      ["b", "c"],
    ];
    const model = createBpeWordModel(vocab, merges, { ignoreMerges: false, onUnknown, symbols });
    expect(model.encodeBytes(Uint8Array.from([1, 2]))).toEqual([3]);
    expect(model.encodeBytes(Uint8Array.from([2, 1, 2]))).toEqual([2, 3]);
    expect(() => model.encodeBytes(Uint8Array.from([0, 1, 2]))).toThrow("unknown ab");
    expect(() => model.encode("ab")).toThrow("unknown ab");
  });
  it("keeps the last rank of a pair listed twice, ties going to the leftmost pair", () => {
    const vocab = new Map([
      ["a", 0],
      ["b", 1],
      ["ab", 2],
      ["ba", 3],
    ]);
    const merges = [
      ["a", "b"],
      ["b", "a"],
      ["a", "b"],
    ];
    const model = createBpeWordModel(vocab, merges, { ignoreMerges: false, onUnknown, symbols });
    // (b, a) now ranks first: "aba" -> a + ba.
    expect(model.encode("aba")).toEqual([0, 3]);
    expect(model.encodeBytes(Uint8Array.from([0, 1, 0]))).toEqual([0, 3]);
    expect(model.encode("baba")).toEqual([3, 3]);
  });
});
