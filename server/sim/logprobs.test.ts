import { beforeAll, describe, expect, it } from "vitest";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createLogprobModel, withLogOddsNoise } from "./logprobs";
import { createPrefixCache } from "./prefixCache";

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer("qwen3");
});

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe("createLogprobModel", () => {
  it("is deterministic per seed and varies across seeds and positions", () => {
    const ids = tokenizer.encode("The calculator returned 84, so the answer is 84.");
    const score = (seed: number) =>
      ids.map((id, i) => createLogprobModel(tokenizer, seed, 1).score(i, id));
    expect(score(5)).toEqual(score(5));
    expect(score(6)).not.toEqual(score(5));
    expect(new Set(score(5)).size).toBe(ids.length);
    expect(score(5).every((lp) => lp <= 0 && lp >= -40)).toBe(true);
  });

  it("scores punctuation and EOS as easier than new words, and greedy as easier than hot sampling", () => {
    const samples = (ids: readonly number[], temperature: number) =>
      Array.from({ length: 400 }, (_, i) =>
        createLogprobModel(tokenizer, i, temperature).score(i, ids[i % ids.length] ?? 0),
      );
    const easy = [...tokenizer.encode(".,\n"), 151645];
    const words = tokenizer.encode(" calculator answer returned expression");
    expect(mean(samples(easy, 1))).toBeGreaterThan(mean(samples(words, 1)) * 0.5);
    expect(mean(samples(words, 0))).toBeGreaterThan(mean(samples(words, 1)));
    expect(mean(samples(words, 1))).toBeGreaterThan(mean(samples(words, 2)));
  });

  it("gives sorted top-k lists that contain the token and never sum past probability 1", () => {
    for (const temperature of [0, 0.7, 1.5]) {
      const model = createLogprobModel(tokenizer, 11, temperature);
      for (let position = 0; position < 50; position++) {
        const id = 100 + position;
        const lp = model.score(position, id);
        const top = model.topK(position, id, lp, 5);
        expect(top).toHaveLength(5);
        expect(top.map((t) => t[1])).toContain(id);
        expect(new Set(top.map((t) => t[1])).size).toBe(5);
        const values = top.map((t) => t[0]);
        expect([...values].sort((a, b) => b - a)).toEqual(values);
        expect(values.reduce((sum, v) => sum + Math.exp(v), 0)).toBeLessThanOrEqual(1 + 1e-9);
        if (temperature === 0) expect(top[0]?.[1]).toBe(id);
      }
    }
  });
});

describe("--logprob-noise", () => {
  it("moves log-odds by the shift, exactly and without cancellation near p = 1", () => {
    for (const lp of [-1e-6, -0.01, -0.3, -Math.LN2, -2, -9]) {
      const logit = (x: number) => x - Math.log(-Math.expm1(x));
      expect(withLogOddsNoise(lp, 0)).toBeCloseTo(lp, 12);
      for (const shift of [-3, -0.2, 0.2, 3]) {
        const moved = withLogOddsNoise(lp, shift);
        expect(moved).toBeLessThan(0);
        expect(logit(moved)).toBeCloseTo(logit(lp) + shift, 6);
      }
    }
  });

  it("is unbiased in log-odds with the asked spread, also on near-certain tokens", () => {
    const ids = tokenizer.encode(" calculator answer returned expression .,\n".repeat(40));
    // Greedy (temperature 0): near-certain tokens, which a clamp at 0 could only push down.
    const model = createLogprobModel(tokenizer, 3, 0, ids, { noise: 0.3 });
    const logit = (x: number) => x - Math.log(-Math.expm1(x));
    const shifts = ids.map((id, i) => logit(model.scoreInput(i, id)) - logit(model.score(i, id)));
    const m = mean(shifts);
    const sd = Math.sqrt(mean(shifts.map((x) => (x - m) ** 2)));
    expect(Math.abs(m)).toBeLessThan(0.05);
    expect(sd).toBeGreaterThan(0.24);
    expect(sd).toBeLessThan(0.36);
  });
});

describe("createLogprobModel on a vocabulary whose EOS comes first (DeepSeek-V3: id 1)", () => {
  it("draws top-k alternatives from the regular vocabulary, never added tokens", async () => {
    const deepseek = await loadTokenizer("deepseek_v3");
    expect(deepseek.eosTokenIds).toEqual([1]);
    const model = createLogprobModel(deepseek, 3, 0.7);
    const [id] = deepseek.encode("calculator");
    const top = model.topK(10, id ?? 0, model.score(10, id ?? 0), 6);
    expect(top).toHaveLength(6);
    expect(top.filter(([, alt]) => alt !== id).every(([, alt]) => !deepseek.isAdded(alt))).toBe(
      true,
    );
  });
});

describe("createPrefixCache", () => {
  it.each([
    [[[1, 2, 3, 4]], [1, 2, 3, 9], 3],
    [
      [
        [1, 2],
        [1, 2, 3, 4, 5],
      ],
      [1, 2, 3, 4],
      4,
    ],
    [[[5, 6]], [1, 2], 0],
    [[], [1], 0],
  ])("after %j, match(%j) = %i", (inserted, query, expected) => {
    const cache = createPrefixCache();
    for (const ids of inserted) cache.insert(ids);
    expect(cache.match(query)).toBe(expected);
  });

  it("empties itself instead of growing past its budget", () => {
    const cache = createPrefixCache(5);
    cache.insert([1, 2, 3]);
    cache.insert([7, 8, 9]);
    expect(cache.match([1, 2, 3])).toBe(0);
    expect(cache.match([7, 8, 9])).toBe(3);
    expect(cache.size).toBe(3);
  });
});
