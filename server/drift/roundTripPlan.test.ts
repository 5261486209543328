import { Tokenizer as NativeTokenizer } from "tokenizers";
import { describe, expect, it } from "vitest";
import { detectDrift, firstDivergence } from "../../src/core/drift/detectDrift";
import { createRoundTripAccelerator } from "../../src/core/tokenizer/roundTripFast";
import { roundTripPlanFor } from "../../src/core/tokenizer/roundTripPlan";
import { flattenSegments } from "../../src/core/trajectory/flatten";
import { promptSegment, trajectory } from "../../src/test/trajectoryBuilders";
import { createHfTokenizer } from "../../src/tokenizer/hfTokenizer";
import { generateCorpus, INJECTED_DRIFTS } from "../../test-support/syntheticCorpus";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import {
  loadTokenizer,
  readTokenizerFiles,
  resolveTokenizerDir,
} from "../tokenizers/loadTokenizer";

/** The reference verdicts: native HF tokenizers (Rust) decode + encode, special tokens kept. */
async function nativeRoundTrip(name: string, ids: readonly number[][]): Promise<number[][]> {
  const native = NativeTokenizer.fromFile(`${resolveTokenizerDir(name)}/tokenizer.json`);
  const texts = await native.decodeBatch([...ids], false);
  const encoded = await native.encodeBatch(texts, { addSpecialTokens: false });
  return encoded.map((e) => e.getIds());
}

describe.each([
  ["qwen3", 300],
  ["llama3", 120],
])("round-trip verdicts with %s on a generated corpus", (name, count) => {
  it("give the native tokenizer's first divergence index on every trajectory", async () => {
    const tokenizer = await loadTokenizer(name);
    const plan = roundTripPlanFor(tokenizer);
    expect(plan.path).toBe("fast");
    const { accelerator } = plan;
    const native = NativeTokenizer.fromFile(`${resolveTokenizerDir(name)}/tokenizer.json`);
    const corpus = await generateCorpus(
      tokenizer,
      async (texts) =>
        (await native.encodeBatch([...texts], { addSpecialTokens: false })).map((e) => e.getIds()),
      { seed: name === "qwen3" ? 11 : 12, count, driftRate: 0.4 },
    );
    const ids = corpus.map((c) => flattenSegments(c.trajectory.segments).tokenIds);
    const reference = await nativeRoundTrip(name, ids);
    const expected = ids.map((x, i) => firstDivergence(x, reference[i] ?? []) ?? null);
    const fast = corpus.map(
      (c) => detectDrift(c.trajectory, tokenizer, { accelerator })[0]?.firstDivergenceIndex ?? null,
    );
    expect(fast).toEqual(expected);
    // The compact tokenizer the drift checks load (no library BPE) gives the same verdicts.
    const compact = await loadDriftTokenizer(name);
    const compactPlan = roundTripPlanFor(compact);
    expect(compactPlan.path).toBe("fast");
    const viaCompact = corpus.map(
      (c) =>
        detectDrift(c.trajectory, compact, { accelerator: compactPlan.accelerator })[0]
          ?.firstDivergenceIndex ?? null,
    );
    expect(viaCompact).toEqual(expected);
    const compactPlain = corpus
      .slice(0, 40)
      .map((c) => detectDrift(c.trajectory, compact)[0]?.firstDivergenceIndex ?? null);
    expect(compactPlain).toEqual(expected.slice(0, 40));
    // The plain path (no accelerator) agrees too, on a slice (it is much slower).
    const plain = corpus
      .slice(0, 40)
      .map((c) => detectDrift(c.trajectory, tokenizer)[0]?.firstDivergenceIndex ?? null);
    expect(plain).toEqual(expected.slice(0, 40));
    // The corpus really exercises both verdicts and every injected drift kind.
    const drifted = expected.filter((v) => v !== null).length;
    expect(drifted).toBeGreaterThan(count / 10);
    expect(drifted).toBeLessThan(count);
    if (name === "qwen3") {
      for (const kind of INJECTED_DRIFTS) {
        const some = corpus.some((c, i) => c.injected === kind && expected[i] !== null);
        expect(some, kind).toBe(true);
      }
    }
  });
});

describe("round trip with added-token text spelled in ordinary pieces", () => {
  // Each case is a list of texts: a `!` prefix marks text encoded piece by piece (a spelled added
  // token or a cut inside one), anything else is encoded normally (added tokens become their ids).
  const cases: [string, string[]][] = [
    [
      "spelled tool call in a middle turn",
      [
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok ",
        "!<tool_call>",
        " done<|im_end|>\n<|im_start|>user\nnext<|im_end|>",
      ],
    ],
    [
      "spelled text running into a recorded added token",
      ["<|im_start|>assistant\nsee ", "!<tool_call", "><|im_end|>\n<|im_start|>user\nx<|im_end|>"],
    ],
    [
      "recorded added token followed by stray text",
      ["<|im_start|>user\n", "!<|im_end|>", "<|im_end|>\n<|im_start|>assistant\nfine<|im_end|>"],
    ],
    [
      "stray text in the first and last runs",
      ["!<think>", " a<|im_end|>\nmiddle<|im_start|>b ", "!</think>"],
    ],
    ["no stray text", ["<|im_start|>user\nplain text<|im_end|>\n"]],
  ];
  it.each(cases)("%s: same ids as encode(decode(ids))", async (_name, parts) => {
    const tokenizer = await loadTokenizer("qwen3");
    const { accelerator } = roundTripPlanFor(tokenizer);
    if (!accelerator) throw new Error("qwen3 has a fast path");
    const ids: number[] = [];
    for (const part of parts) {
      if (part.startsWith("!")) {
        for (const ch of part.slice(1)) ids.push(...tokenizer.encode(ch));
      } else ids.push(...tokenizer.encode(part));
    }
    expect([...accelerator.roundTrip(ids)]).toEqual(tokenizer.encode(tokenizer.decode(ids)));
  });
});

describe("a tokenizer.json the fast path cannot vouch for", () => {
  it("runs the exact round trip, says why, and gives the same verdicts", async () => {
    const files = await readTokenizerFiles("qwen3");
    const json = structuredClone(files.tokenizerJson) as {
      pre_tokenizer: { pretokenizers: { pattern?: { Regex: string } }[] };
    };
    const split = json.pre_tokenizer.pretokenizers[0]?.pattern;
    if (!split) throw new Error("qwen3's tokenizer.json has a split pattern");
    // Digit runs of up to 2: a regex the core scanner does not reproduce.
    split.Regex = split.Regex.replace("\\p{N}|", "\\p{N}{1,2}|");
    const odd = createHfTokenizer("qwen3-digits2", { ...files, tokenizerJson: json });
    const plan = roundTripPlanFor(odd);
    expect(plan).toMatchObject({ path: "exact", reason: expect.stringContaining("split regex") });
    expect(plan.accelerator).toBeUndefined();
    const qwen = await loadTokenizer("qwen3");
    const ids = qwen.encode("a 1234 b").concat(qwen.encode("5"), qwen.encode("6 c"));
    const expected = odd.encode(odd.decode(ids));
    const t = trajectory([promptSegment(ids)], { id: "digits" });
    const result = detectDrift(t, odd, { accelerator: plan.accelerator })[0];
    expect(result?.lenRetok).toBe(expected.length);
    expect(result?.firstDivergenceIndex ?? null).toBe(firstDivergence(ids, expected) ?? null);
  });
});

describe("a sentencepiece tokenizer", () => {
  it("takes the exact path, naming what in its tokenizer.json the proof refuses", async () => {
    const plan = roundTripPlanFor(await loadTokenizer("src/test/fixtures/sentencepiece-tiny"));
    expect(plan.path).toBe("exact");
    expect(plan.path === "exact" ? plan.reason : "").toBe(
      'src/test/fixtures/sentencepiece-tiny: normalizer (type "Sequence") is not what the fast path reproduces',
    );
  });
});

describe("verdicts of many distinct multi-token pre-tokens", () => {
  it("stay right while the verdict table grows (canonical and split spellings, asked twice)", async () => {
    const tokenizer = await loadTokenizer("qwen3");
    const { accelerator } = roundTripPlanFor(tokenizer);
    if (!accelerator) throw new Error("qwen3 has a fast path");
    // Seeded nonsense words: each a multi-token pre-token the caches have not seen.
    let seed = 7;
    const letter = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return "bcdfghjklmnpqrstvwxz"[(seed >>> 16) % 20] ?? "q";
    };
    let multi = 0;
    for (let w = 0; w < 6000; w++) {
      const word = ` ${Array.from({ length: 9 }, letter).join("")}`;
      const ids = tokenizer.encode(word);
      if (ids.length > 1) multi += 1;
      // The same bytes spelled one byte-piece per character: not canonical when it differs.
      const spelled = [...word].flatMap((ch) => tokenizer.encode(ch));
      const want = tokenizer.encode(tokenizer.decode(spelled));
      for (let again = 0; again < 2; again++) {
        expect([...accelerator.roundTrip(ids)]).toEqual(ids);
        expect([...accelerator.roundTrip(spelled)]).toEqual(want);
      }
    }
    expect(multi).toBeGreaterThan(5000);
  }, 60_000);
});

describe("text with combining marks and variation selectors", () => {
  it("round-trips on the fast path when NFC leaves it alone, exactly when it does not", async () => {
    const tokenizer = await loadTokenizer("qwen3");
    const plain = tokenizer.pipeline;
    if (!plain) throw new Error("qwen3 has a pipeline");
    let encodes = 0;
    const counting = {
      ...tokenizer,
      encode: (text: string) => {
        encodes += 1;
        return tokenizer.encode(text);
      },
    };
    const accelerator = createRoundTripAccelerator(counting, {
      digitRun: 1,
      nfc: true,
      encodeWord: plain.encodeWord,
    });
    const stable = [
      "## प्रायोजक और स्थापना — कार्यक्षमता",
      "# ⚡️ Lightning CSS and 🛣️ pathe ⚠️",
      "naïve café (precomposed)",
    ];
    for (const text of stable) {
      const ids = tokenizer.encode(text);
      const spelled = [...text].flatMap((ch) => tokenizer.encode(ch));
      encodes = 0;
      expect(accelerator.roundTrip(ids)).toBe(ids);
      expect([...accelerator.roundTrip(spelled)]).toEqual(ids);
      expect(encodes, text).toBe(0);
    }
    // Decomposed é: NFC composes it, so the ids of the decomposed text do not survive.
    const decomposed = "Cafe\u0301 cre\u0300me";
    const ids = [...decomposed].flatMap((ch) => tokenizer.encode(ch));
    const want = tokenizer.encode(tokenizer.decode(ids));
    expect(want).not.toEqual(ids);
    expect([...accelerator.roundTrip(ids)]).toEqual(want);
  });
});
