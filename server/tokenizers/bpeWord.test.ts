import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createBpeWordModel, idMergesOf, SCAN_UP_TO } from "../../src/core/tokenizer/bpeWord";
import { createCompactBpe } from "../../src/core/tokenizer/compactBpe";
import {
  buildCompactTokenizer,
  readCompactTokenizer,
} from "../../src/core/tokenizer/compactFormat";
import { roundTripPlanFor } from "../../src/core/tokenizer/roundTripPlan";
import { byteLevelChars } from "../../src/core/tokenizer/vocabBytes";
import { createHfTokenizer } from "../../src/tokenizer/hfTokenizer";
import { readTokenizerFiles } from "./loadTokenizer";

const chars = byteLevelChars();

/** Pre-token-like pieces of real text: words with a leading space, digit runs, punctuation runs. */
function realWords(): string[] {
  const text = ["README.md", "docs/drift.md", "server/drift/driftFile.ts", "package.json"]
    .map((p) => readFileSync(join(import.meta.dirname, "../..", p), "utf8"))
    .join("\n");
  return [...new Set(text.match(/ ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu) ?? [])];
}

describe.each(["qwen3", "llama3"])("the one word BPE (%s)", (name) => {
  it("gives the library's pieces, over the library's data and over the compact blob", async () => {
    const files = await readTokenizerFiles(name);
    const hf = new HfTokenizer(files.tokenizerJson as object, files.tokenizerConfig as object);
    const model = hf.model as unknown as ((words: string[]) => string[]) & {
      tokens_to_ids: Map<string, number>;
    };
    const pipeline = createHfTokenizer(name, files).pipeline;
    if (!pipeline) throw new Error("no pipeline");
    const compact = createCompactBpe(
      readCompactTokenizer(buildCompactTokenizer(files.tokenizerJson, { test: name })),
    );
    const reference = (word: string) => model([word]).map((p) => model.tokens_to_ids.get(p));
    const check = (bytes: Uint8Array) => {
      let word = "";
      for (const b of bytes) word += chars[b];
      const want = reference(word);
      expect([word, pipeline.encodeWord(bytes)]).toEqual([word, want]);
      // Inside a larger buffer, as the compact encoder passes pre-tokens.
      const padded = new Uint8Array(bytes.length + 4);
      padded.set(bytes, 2);
      expect([word, compact.encode(padded, 2, 2 + bytes.length)]).toEqual([word, want]);
    };
    const words = realWords();
    expect(words.length).toBeGreaterThan(500);
    for (const text of words) check(Buffer.from(text, "utf8"));
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 24 }), (bytes) => check(bytes)),
      { numRuns: 400 },
    );
    // Repeated pairs and long runs (merge order matters there).
    for (const text of ["aaaaaaa", " ababab", "0000000", "))))))", "\n\n\n\n", "       x"]) {
      check(Buffer.from(text, "utf8"));
    }
    check(Buffer.from("x".repeat(600), "utf8"));
    // Words longer than SCAN_UP_TO merge through the heap: CJK and Hangul runs (one pre-token
    // each), long whitespace runs, long identifiers, repeated pairs, random bytes.
    const long = [
      "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她",
      "あいうえおかきくけこさしすせそたちつてとアイウエオカキクケコ",
      "한국어텍스트입니다가나다라마바사아자차카타파하",
      " ".repeat(37),
      "\t".repeat(29),
      " \n".repeat(20),
      " supercalifragilisticexpialidociousAntidisestablishmentarianism",
      "ab".repeat(40),
      "0".repeat(50),
    ];
    for (const text of long) {
      expect(Buffer.byteLength(text)).toBeGreaterThan(SCAN_UP_TO);
      check(Buffer.from(text, "utf8"));
    }
    fc.assert(
      fc.property(fc.uint8Array({ minLength: SCAN_UP_TO + 1, maxLength: 300 }), (bytes) =>
        check(bytes),
      ),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(..."的一是不了人我在あいうアイ한국어 \n\t00aab"), {
          minLength: 9,
          maxLength: 200,
        }),
        (cs) => check(Buffer.from(cs.join(""), "utf8")),
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe("the word BPE's merges by id", () => {
  const byteIds = Int32Array.from({ length: 256 }, (_, b) => b);
  it("keeps the later rank of a pair listed twice, ties going to the leftmost pair", () => {
    // ids: a=0, b=1, ab=256, ba=257.
    const idOf = new Map([
      ["a", 0],
      ["b", 1],
      ["ab", 256],
      ["ba", 257],
    ]);
    const merges = idMergesOf(
      [
        ["a", "b"],
        ["b", "a"],
        ["a", "b"],
      ],
      idOf,
    );
    if (typeof merges === "string") throw new Error(merges);
    const model = createBpeWordModel({ byteIds, merges: () => merges });
    // (b, a) now ranks first: "aba" -> a + ba; "baba" -> ba + ba.
    expect(model.encode(Uint8Array.from([0, 1, 0]), 0, 3)).toEqual([0, 257]);
    expect(model.encode(Uint8Array.from([1, 0, 1, 0]), 0, 4)).toEqual([257, 257]);
    // The same past SCAN_UP_TO bytes (the heap): "abab…ab" -> a + ba… + b.
    const abs = Uint8Array.from({ length: 2 * SCAN_UP_TO }, (_, k) => k % 2);
    expect(model.encode(abs, 0, abs.length)).toEqual([
      0,
      ...Array.from({ length: SCAN_UP_TO - 1 }, () => 257),
      1,
    ]);
    // With one rank each, the leftmost of equal pairs merges first: "aaa" -> aa + a.
    const aa = idMergesOf(
      [["a", "a"]],
      new Map([
        ["a", 0],
        ["aa", 300],
      ]),
    );
    if (typeof aa === "string") throw new Error(aa);
    const runs = createBpeWordModel({ byteIds, merges: () => aa });
    expect(runs.encode(Uint8Array.from([0, 0, 0]), 0, 3)).toEqual([300, 0]);
    const odd = new Uint8Array(2 * SCAN_UP_TO + 1);
    expect(runs.encode(odd, 0, odd.length)).toEqual([
      ...Array.from({ length: SCAN_UP_TO }, () => 300),
      0,
    ]);
  });
  it("leaves out merges whose sides are no pieces, and refuses one making a missing piece", () => {
    const idOf = new Map([
      ["a", 0],
      ["b", 1],
      ["ab", 2],
    ]);
    const kept = idMergesOf(["a b", "x y"], idOf);
    expect(kept).toEqual({ left: [0], right: [1], rank: [0], merged: [2] });
    expect(idMergesOf([["b", "a"]], idOf)).toMatch(
      /merge 0 \(b a\) makes a piece not in the vocabulary/,
    );
  });
  it("uses the whole-word piece first when ignore_merges is set", () => {
    const model = createBpeWordModel({
      byteIds,
      merges: () => ({ left: [], right: [], rank: [], merged: [] }),
      whole: (bytes, from, to) => (to - from === 2 && bytes[from] === 7 ? 999 : -1),
    });
    expect(model.encode(Uint8Array.from([9, 7, 8]), 1, 3)).toEqual([999]);
    expect(model.encode(Uint8Array.from([9, 8, 8]), 1, 3)).toEqual([8, 8]);
  });
});

describe("a library tokenizer whose ids cannot mirror its pieces", () => {
  it("takes the exact round trip, saying why, when a merge makes a missing piece", async () => {
    const files = await readTokenizerFiles("qwen3");
    const json = structuredClone(files.tokenizerJson) as {
      model: { merges: unknown[]; vocab: Record<string, number> };
    };
    expect(roundTripPlanFor(createHfTokenizer("q", files)).path).toBe("fast");
    // The first merge's result removed from the vocabulary.
    const first = json.model.merges[0] as string[] | string;
    const [a, b] = typeof first === "string" ? first.split(" ") : first;
    delete json.model.vocab[`${a}${b}`];
    const plan = roundTripPlanFor(createHfTokenizer("q", { ...files, tokenizerJson: json }));
    expect(plan.path === "exact" ? plan.reason : plan.path).toBe(
      `q: merge 0 (${a} ${b}) makes a piece not in the vocabulary`,
    );
  }, 60_000);
});
