import { describe, expect, it } from "vitest";
import { callSim } from "../../test-support/sim";
import { createSimApp, type SimApp } from "./app";
import { CANDIDATES } from "./distribution";
import { distributionAt } from "./explicitModel";
import { prefixKeys } from "./logprobs";

type Tuple = [number | null, number, string | null];
interface Meta {
  output_token_logprobs: Tuple[];
  input_token_logprobs?: Tuple[];
  output_top_logprobs?: Tuple[][];
  top_p_kept_token_ids?: number[];
  top_p_kept_token_offsets?: number[];
  routed_experts?: string;
}
interface Body {
  output_ids: number[];
  meta_info: Meta;
}

const SEED = 7;
const T = 0.7;
const TOP_P = 0.9;

// The reference, written from the definitions (not the simulator's helpers).
function logSoftmaxRef(z: Float64Array, t: number): number[] {
  const scaled = [...z].map((v) => v / t);
  const max = Math.max(...scaled);
  const lse = max + Math.log(scaled.reduce((s, v) => s + Math.exp(v - max), 0));
  return scaled.map((v) => v - lse);
}
function keptRef(lps: number[], topP: number, topK: number): number[] {
  const order = lps.map((_, i) => i).sort((a, b) => (lps[b] ?? 0) - (lps[a] ?? 0));
  const kept: number[] = [];
  let cum = 0;
  order.forEach((i, rank) => {
    if ((topK < 1 || rank < topK) && cum <= topP) kept.push(i);
    cum += Math.exp(lps[i] ?? 0);
  });
  return kept;
}

async function sample(sim: SimApp, prompt: number[], extra: object = {}): Promise<Body> {
  const answer = await callSim(sim, "POST", "/generate", {
    input_ids: prompt,
    sampling_params: { max_new_tokens: 40, temperature: T, top_p: TOP_P, sampling_seed: SEED },
    return_logprob: true,
    top_logprobs_num: 20,
    ...extra,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Body;
}

async function rescore(sim: SimApp, ids: number[] | number[][]): Promise<Body | Body[]> {
  const answer = await callSim(sim, "POST", "/generate", {
    input_ids: ids,
    sampling_params: { max_new_tokens: 0, temperature: T, sampling_seed: SEED },
    return_logprob: true,
    logprob_start_len: 0,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Body | Body[];
}

function promptOf(sim: SimApp, question: string): number[] {
  const text = sim.tokenizer.applyChatTemplate([{ role: "user", content: question }], {
    addGenerationPrompt: true,
  });
  return sim.tokenizer.encode(text);
}

describe("--logit-model", () => {
  it("samples at T, rescores at 1, and returns SGLang's kept set with --renormalize-kept", async () => {
    const sim = await createSimApp({ logitModel: true, tokenizer: "qwen3" });
    const kept = await createSimApp({
      logitModel: true,
      renormalizeKept: true,
      tokenizer: "qwen3",
    });
    const prompt = promptOf(sim, "What is 23*19?");
    const withKept = await sample(kept, prompt);
    const body = await sample(sim, prompt);
    const all = [...prompt, ...body.output_ids];
    const keys = prefixKeys(all);
    const again = (await rescore(sim, all)) as Body;
    expect(body.meta_info.top_p_kept_token_ids).toBeUndefined();
    const offsets = withKept.meta_info.top_p_kept_token_offsets ?? [];
    expect(offsets).toHaveLength(body.output_ids.length + 1);
    let truncated = 0;
    body.output_ids.forEach((id, i) => {
      const position = prompt.length + i;
      const dist = distributionAt(sim.tokenizer, SEED, keys[position] ?? 0, id);
      expect(dist.ids).toHaveLength(CANDIDATES);
      const atT = logSoftmaxRef(dist.logits, T);
      const atOne = logSoftmaxRef(dist.logits, 1);
      expect(body.meta_info.output_token_logprobs[i]?.[0]).toBeCloseTo(atT[0] ?? 0, 12);
      const scored = again.meta_info.input_token_logprobs?.[position]?.[0] ?? 0;
      expect(Math.abs(scored - Math.min(-1e-7, atOne[0] ?? 0))).toBeLessThan(1e-12);
      const keptIds = keptRef(atT, TOP_P, -1).map((k) => dist.ids[k]);
      const got = withKept.meta_info.top_p_kept_token_ids?.slice(offsets[i], offsets[i + 1]);
      expect(got).toEqual(keptIds);
      expect(got).toContain(id);
      if (keptIds.length < CANDIDATES) truncated++;
      // Top-k: SGLang's convention, temperature-scaled before filtering; 20 entries.
      const top = body.meta_info.output_top_logprobs?.[i] ?? [];
      expect(top).toHaveLength(20);
      const mass = top.reduce((s, [lp]) => s + Math.exp(lp ?? -Infinity), 0);
      expect(mass).toBeCloseTo(1, 9);
    });
    expect(truncated).toBeGreaterThan(0);
  });

  it("renormalises sampled logprobs over the kept set with --renormalize-kept", async () => {
    const plain = await createSimApp({ logitModel: true, tokenizer: "qwen3" });
    const renorm = await createSimApp({
      logitModel: true,
      renormalizeKept: true,
      tokenizer: "qwen3",
    });
    const prompt = promptOf(plain, "What is 7*6?");
    const a = await sample(plain, prompt);
    const b = await sample(renorm, prompt, {
      sampling_params: { max_new_tokens: 40, top_k: 3, temperature: T, sampling_seed: SEED },
    });
    const keys = prefixKeys([...prompt, ...b.output_ids]);
    b.output_ids.forEach((id, i) => {
      const dist = distributionAt(renorm.tokenizer, SEED, keys[prompt.length + i] ?? 0, id);
      const atT = logSoftmaxRef(dist.logits, T);
      const kept = keptRef(atT, 1, 3);
      const mass = kept.reduce((s, k) => s + Math.exp(atT[k] ?? 0), 0);
      const want = (atT[0] ?? 0) - Math.log(mass);
      expect(b.meta_info.output_token_logprobs[i]?.[0]).toBeCloseTo(want, 12);
    });
    expect(a.output_ids).toEqual(b.output_ids);
  });

  it("refuses --renormalize-kept without the logit model", async () => {
    await expect(createSimApp({ renormalizeKept: true })).rejects.toThrow(/renormalizeKept/);
  });
});

describe("--batch-noise", () => {
  it("leaves a sequence scored alone untouched and moves it inside a batch, deterministically", async () => {
    const clean = await createSimApp({ logitModel: true, tokenizer: "qwen3" });
    const noisy = await createSimApp({ logitModel: true, tokenizer: "qwen3", batchNoise: 0.2 });
    const prompt = promptOf(clean, "What is 3+4?");
    const ids = [...prompt, ...(await sample(clean, prompt)).output_ids];
    const lane = (body: Body) => (body.meta_info.input_token_logprobs ?? []).map((t) => t[0]);
    const alone = lane((await rescore(noisy, ids)) as Body);
    expect(alone).toEqual(lane((await rescore(clean, ids)) as Body));
    const batch = async () =>
      lane(((await rescore(noisy, [ids, ids, ids, ids])) as Body[])[0] as Body);
    const inBatch = await batch();
    expect(inBatch).toEqual(await batch());
    const moved = inBatch.filter((lp, i) => lp !== alone[i]).length;
    expect(moved).toBeGreaterThan(ids.length / 2);
  });
});

describe("--routed-experts", () => {
  it("answers return_routed_experts with int32 [tokens − 1, layers, top-k] in base64", async () => {
    const shape = { layers: 3, experts: 8, topK: 2 };
    const sim = await createSimApp({ routedExperts: shape, tokenizer: "qwen3" });
    const prompt = promptOf(sim, "What is 2+2?");
    const body = await sample(sim, prompt, { return_routed_experts: true });
    const bytes = Buffer.from(body.meta_info.routed_experts ?? "", "base64");
    const flat = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const rows = prompt.length + body.output_ids.length - 1;
    expect(flat.length).toBe(rows * 3 * 2);
    for (let cell = 0; cell < rows * 3; cell++) {
      const pair = [flat[2 * cell], flat[2 * cell + 1]];
      expect(pair[0]).not.toBe(pair[1]);
      for (const e of pair) expect(e).toBeGreaterThanOrEqual(0);
      for (const e of pair) expect(e).toBeLessThan(8);
    }
    const without = await sample(sim, prompt);
    expect(without.meta_info.routed_experts).toBeUndefined();
  });
});
