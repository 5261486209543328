import { describe, expect, it } from "vitest";
import { trajectoryDecomposition } from "../../src/core/mismatch/decompositionInputs";
import type { Trajectory } from "../../src/core/trajectory/types";
import { modelSegment, promptSegment } from "../../src/test/trajectoryBuilders";
import { callSim } from "../../test-support/sim";
import { createSimApp, type SimApp } from "./app";
import { distributionAt } from "./explicitModel";
import { prefixKeys } from "./logprobs";

/*
 * Episodes sampled by the simulator at T = 0.7 with top_p = 0.9 and
 * rescored; the decomposition recovers the injected temperature and truncated-support terms to
 * 1e-6 per token and its residual is the injected noise. The reference is written here from the
 * definitions, from the simulator's logits; the noise is the difference between a noisy and a
 * clean simulator's rescoring of the same ids.
 */

type Tuple = [number | null, number, string | null];
interface Body {
  output_ids: number[];
  meta_info: {
    output_token_logprobs: Tuple[];
    output_top_logprobs: Tuple[][];
    input_token_logprobs: Tuple[];
    top_p_kept_token_ids: number[];
    top_p_kept_token_offsets: number[];
  };
}

const SEED = 11;
const T = 0.7;
const TOP_P = 0.9;
const SIM = { logitModel: true, renormalizeKept: true, tokenizer: "qwen3" } as const;

function logSoftmaxRef(z: Float64Array, t: number): number[] {
  const s = [...z].map((v) => v / t);
  const max = Math.max(...s);
  const lse = max + Math.log(s.reduce((acc, v) => acc + Math.exp(v - max), 0));
  return s.map((v) => v - lse);
}

/** SGLang's top-p filter: sorted descending, keep while the mass before the token is ≤ top_p. */
function keptMassRef(atT: number[]): number {
  const sorted = atT.map(Math.exp).sort((x, y) => y - x);
  let before = 0;
  let kept = 0;
  for (const p of sorted) {
    if (before <= TOP_P) kept += p;
    before += p;
  }
  return Math.log(kept);
}

async function post(sim: SimApp, body: object): Promise<Body> {
  const answer = await callSim(sim, "POST", "/generate", body);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Body;
}

/** One sampled turn as a trajectory, with what a recorder keeps (slime's kept-set fields). */
function trajectoryOf(prompt: number[], body: Body, rescored: (number | null)[]): Trajectory {
  const out = body.output_ids;
  const meta = body.meta_info;
  return {
    id: "sim",
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "completed",
    samplingParams: { temperature: T, top_p: TOP_P },
    segments: [
      promptSegment(prompt),
      modelSegment(out, 1, {
        logprobs: meta.output_token_logprobs.map((x) => x[0]),
        topLogprobs: meta.output_top_logprobs.map((list) =>
          list.map(([lp, id]) => ({ tokenId: id, logprob: lp ?? Number.NEGATIVE_INFINITY })),
        ),
      }),
    ],
    logprobLanes: { rescored },
    metadata: {
      rollout_top_p_token_ids: meta.top_p_kept_token_ids,
      rollout_top_p_token_offsets: meta.top_p_kept_token_offsets,
    },
  };
}

describe("decomposition of simulator episodes (T = 0.7, top_p = 0.9, rescored)", () => {
  it("recovers the injected temperature and support terms to 1e-6 and the noise as residual", async () => {
    const noisy = await createSimApp({ ...SIM, logprobNoise: 0.05 });
    const clean = await createSimApp(SIM);
    let checked = 0;
    let spurious = 0;
    for (const question of ["What is 23*19?", "What is 7*6 and then 40+2?", "What is 12-5?"]) {
      const text = noisy.tokenizer.applyChatTemplate([{ role: "user", content: question }], {
        addGenerationPrompt: true,
      });
      const prompt = noisy.tokenizer.encode(text);
      const sampled = await post(noisy, {
        input_ids: prompt,
        sampling_params: { max_new_tokens: 60, temperature: T, top_p: TOP_P, sampling_seed: SEED },
        return_logprob: true,
        top_logprobs_num: 20,
      });
      const ids = [...prompt, ...sampled.output_ids];
      const rescore = (sim: SimApp) =>
        post(sim, {
          input_ids: ids,
          sampling_params: { max_new_tokens: 0, temperature: T, sampling_seed: SEED },
          return_logprob: true,
          logprob_start_len: 0,
        }).then((b) => b.meta_info.input_token_logprobs.map((x) => x[0]));
      const lane = await rescore(noisy);
      const lane0 = await rescore(clean);
      const t = trajectoryOf(prompt, sampled, lane);
      const result = trajectoryDecomposition(t, ["rescored", "sampled"]);
      if (!result.ok) throw new Error(result.message);
      const d = result.result;
      const keys = prefixKeys(ids);
      for (let k = prompt.length; k < ids.length; k++) {
        const dist = distributionAt(noisy.tokenizer, SEED, keys[k] ?? 0, ids[k] ?? 0);
        const atOne = logSoftmaxRef(dist.logits, 1);
        const atT = logSoftmaxRef(dist.logits, T);
        const temperatureRef = (atOne[0] ?? 0) - (atT[0] ?? 0);
        const supportRef = keptMassRef(atT);
        const noise = (lane[k] ?? 0) - (lane0[k] ?? 0);
        expect(Math.abs((d.temperature[k] ?? 0) - temperatureRef)).toBeLessThan(1e-6);
        expect(Math.abs((d.support[k] ?? 0) - supportRef)).toBeLessThan(1e-6);
        expect(Math.abs((d.residual[k] ?? 0) - noise)).toBeLessThan(1e-6);
        expect(d.status[k]).toBe(1); // compared, every term exact
        checked++;
      }
      expect(d.summary.known).toBe(sampled.output_ids.length);
      expect(d.summary.approximate).toBe(0);
      if (d.summary.verdict === "spurious") spurious++;
      expect(d.summary.meanAbsTemperature).toBeGreaterThan(0.01);
      expect(d.summary.meanAbsSupport).toBeGreaterThan(0.01);
    }
    expect(checked).toBeGreaterThan(60);
    // σ = 0.05 in log-odds leaves little outside [0.9, 1.1] once the two terms are taken out.
    expect(spurious).toBeGreaterThan(0);
  });
});
