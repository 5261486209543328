import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBundle } from "../../src/core/bisect/bundle";
import type { BisectRow } from "../../src/core/bisect/table";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";

let sim: RunningSim;
let simB: RunningSim;
let direct: SglangClient;
const dir = mkdtempSync(join(tmpdir(), "rollout-lens-bisect-"));
const rowFile = join(dir, "row.jsonl");

beforeAll(async () => {
  sim = await startSim({ port: 0 });
  // Engine b: the same model with noisy prompt scoring, as another kernel or TP would give.
  simB = await startSim({ port: 0 }, { logprobNoise: 0.3 });
  direct = new SglangClient({ upstreams: sim.url, health: { intervalMs: 0, reprobeMs: 60_000 } });
  const line = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
  writeFileSync(rowFile, `${line.replace('"temperature":1,', '"temperature":0.7,"top_p":0.9,')}\n`);
  // Two simulators on a loaded 2-core machine take seconds to start.
}, 120_000);
afterAll(async () => {
  await direct.close();
  await sim.close();
  await simB.close();
});

function rowsOf(text: string): { rows: BisectRow[]; reproduces?: boolean; differences?: string[] } {
  return JSON.parse(text);
}

function readBundle(path: string) {
  const parsed = parseBundle(readFileSync(path, "utf8"), path);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.bundle;
}

describe("rollout-lens bisect", () => {
  const bundlePath = join(dir, "bundle.json");
  let firstRows: BisectRow[] = [];

  it("runs every knob against the simulator and exports a bundle", async () => {
    const { code, out, err } = await runCli([
      "bisect",
      rowFile,
      "--row",
      "0",
      "--sglang",
      sim.url,
      "--sglang-b",
      simB.url,
      "--json",
      "--bundle-out",
      bundlePath,
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    firstRows = rowsOf(out).rows;
    expect(firstRows.map((r) => [r.knob, r.status])).toEqual([
      ["reference", "ran"],
      ["temperature", "ran"],
      ["top_p", "ran"],
      ["batch", "ran"],
      ["decode", "ran"],
      ["upstream", "ran"],
    ]);
    const bundle = readBundle(bundlePath);
    expect(bundle.server.model_info).toMatchObject({
      model_path: expect.stringContaining("simulator"),
    });
    expect(bundle.server.server_info).toMatchObject({ simulator: true });
    expect(bundle.tokenizer).toMatchObject({
      name: "qwen3",
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(bundle.sampling_params).toMatchObject({ temperature: 0.7, top_p: 0.9 });
    expect(bundle.baseline.name).toBe("sampled");

    const lane = (knob: string) => {
      const k = bundle.knobs.find((x) => x.knob === knob);
      if (k?.status !== "ran") throw new Error(`${knob} did not run`);
      return k.lane;
    };
    const ids = bundle.ids;
    const trained = bundle.mask.flatMap((m, k) => (m === 1 ? [k] : []));
    // Each lane is what the upstream answers for that one change, asked directly.
    const atT = async (temperature: number) =>
      (await direct.rescore({ inputIds: ids, temperature })).lane;
    expect(lane("reference")).toEqual(await atT(1));
    expect(lane("temperature")).not.toEqual(lane("reference"));
    const [inBatch] = await direct.rescoreBatch(
      Array.from({ length: 8 }, (_, i) => ({
        inputIds: i === 0 ? ids : [...ids].reverse(),
        temperature: 1,
      })),
    );
    for (const k of trained) expect(lane("batch")[k]).toBe(inBatch?.lane[k]);
    for (const k of trained) {
      const one = await direct.rescore({
        inputIds: ids.slice(0, k + 1),
        temperature: 1,
        logprobStartLen: k - 1,
      });
      expect(lane("decode")[k]).toBe(one.lane[k]);
    }
    // Renormalising over the kept set only raises a logprob (kept mass ≤ 1), or drops the token.
    const ref = lane("reference");
    const renorm = lane("top_p");
    expect(trained.some((k) => (renorm[k] ?? 0) > (ref[k] ?? 0))).toBe(true);
    for (const k of trained)
      if (renorm[k] !== null) expect(renorm[k]).toBeGreaterThanOrEqual(ref[k] ?? 0);
    const upstream = firstRows.find((r) => r.knob === "upstream");
    expect(upstream?.status === "ran" && upstream.stats.meanAbsDelta).toBeGreaterThan(0);
  });

  it("--bundle reruns the knobs and reproduces the same table", async () => {
    const { code, out, err } = await runCli([
      "bisect",
      "--bundle",
      bundlePath,
      "--sglang",
      sim.url,
      "--sglang-b",
      simB.url,
      "--json",
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const again = rowsOf(out);
    expect(again.reproduces).toBe(true);
    expect(again.rows).toEqual(firstRows);
    const text = await runCli([
      "bisect",
      "--bundle",
      bundlePath,
      "--sglang",
      sim.url,
      "--sglang-b",
      simB.url,
    ]);
    expect(text.out).toMatch(/reproduces the bundle's table/);
    expect(text.out).toMatch(/^temperature +\d+ +\d\.\d{5}/m);
  });

  it("says when a rerun's table differs (another upstream a)", async () => {
    const { code, out } = await runCli([
      "bisect",
      "--bundle",
      bundlePath,
      "--sglang",
      simB.url,
      "--sglang-b",
      simB.url,
      "--json",
    ]);
    expect(code).toBe(1);
    const again = rowsOf(out);
    expect(again.reproduces).toBe(false);
    expect(again.differences?.[0]).toMatch(/^reference: meanAbsDelta/);
  });

  it("reports a knob that cannot run as unchecked, never as no difference (exit 1)", async () => {
    const { code, out } = await runCli([
      "bisect",
      rowFile,
      "--sglang",
      sim.url,
      "--knobs",
      "upstream,batch",
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(
      /^upstream +unchecked: no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B$/m,
    );
    const atOne = join(dir, "t1.jsonl");
    writeFileSync(atOne, `${fixtureLines("reference-rollout-lens.jsonl")[0]}\n`);
    const t1 = await runCli([
      "bisect",
      atOne,
      "--sglang",
      sim.url,
      "--knobs",
      "temperature,top_p",
      "--json",
    ]);
    expect(t1.code).toBe(1);
    expect(rowsOf(t1.out).rows.slice(1)).toEqual([
      { knob: "temperature", status: "unchecked", reason: "sampled at T = 1: nothing to vary" },
      {
        knob: "top_p",
        status: "unchecked",
        reason: "the row's sampling params truncate nothing (no top_p < 1, no top_k > 0)",
      },
    ]);
  });

  it.each([
    [["--knobs", "tp"], /^bisect: --knobs: unknown knob "tp"/],
    [["--row", "7"], /^bisect: row 7 is out of range|row 7/],
    [["--batch-size", "1"], /^bisect: --batch-size: expected a whole number 2-256, got "1"$/],
    [["--baseline", "trainer"], /^bisect: --baseline: expected sampled, reference or auto/],
  ])("refuses bad input %j with a clear error, exit 2", async (extra, error) => {
    const { code, err } = await runCli(["bisect", rowFile, "--sglang", sim.url, ...extra]);
    expect(code).toBe(2);
    expect(err).toMatch(error);
  });

  it("refuses Llama-3 ids against a Qwen3 upstream (the family guard), unless --force", async () => {
    const qwen = await startSim({ port: 0 }, { tokenizer: "qwen3" });
    try {
      const llama = join(dir, "llama.jsonl");
      writeFileSync(llama, `${fixtureLines("atropos-rubiks-trimmed.jsonl")[0]}\n`);
      const refused = await runCli(["bisect", llama, "--sglang", qwen.url, "--knobs", "batch"]);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(
        /family mismatch: .*--force to rescore anyway.*nothing was rescored/,
      );
    } finally {
      await qwen.close();
    }
  });

  it("refuses an upstream b of another family too (exit 2), unless --force", async () => {
    const llamaB = await startSim({ port: 0 }, { tokenizer: "llama3" });
    try {
      const args = ["bisect", rowFile, "--sglang", sim.url, "--sglang-b", llamaB.url];
      const refused = await runCli([...args, "--knobs", "upstream"]);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(`bisect: ${llamaB.url}: family mismatch: `);
      const forced = await runCli([...args, "--knobs", "upstream", "--force"]);
      expect(forced.code).not.toBe(2);
    } finally {
      await llamaB.close();
    }
  });

  it("refuses a bad bundle naming the field, and an unreachable upstream, exit 2", async () => {
    const bad = join(dir, "bad.json");
    const text = readFileSync(bundlePath, "utf8").replace('"version":1', '"version":2');
    writeFileSync(bad, text);
    const r = await runCli(["bisect", "--bundle", bad, "--sglang", sim.url]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^bisect: .*bad\.json: version: /);
    const down = await runCli(["bisect", rowFile, "--sglang", "http://127.0.0.1:9"]);
    expect(down.code).toBe(2);
    expect(down.err).toMatch(
      /cannot reach SGLang at http:\/\/127\.0\.0\.1:9.*nothing was rescored/,
    );
  });
});

describe("rollout-lens bisect against the simulator's explicit distribution", () => {
  // A Qwen3 prompt; the reply is the simulator's own, sampled at T = 0.7 with top_p = 0.9.
  const prompt = [151644, 872, 198, 16, 20, 9, 22, 30, 151645, 198, 151644, 77091, 198];

  async function sampledRow(sim: RunningSim, name: string): Promise<string> {
    const client = new SglangClient({
      upstreams: sim.url,
      health: { intervalMs: 0, reprobeMs: 60_000 },
    });
    try {
      const params = { temperature: 0.7, top_p: 0.9, max_new_tokens: 48 };
      const g = await client.generate({
        inputIds: prompt,
        samplingParams: { ...params, skip_special_tokens: false, no_stop_trim: true },
      });
      const record = {
        format: "rollout-lens/v1",
        id: name,
        created_at: "2026-11-26T00:00:00Z",
        status: "completed",
        sampling_params: params,
        token_ids: [...prompt, ...g.outputIds],
        loss_mask: [...prompt.map(() => 0), ...g.outputIds.map(() => 1)],
        segment_info: [
          [false, prompt.length],
          [true, g.outputIds.length],
        ],
        metadata: {},
        segments: [
          { kind: "prompt", turn: 0, start: 0, end: prompt.length },
          { kind: "model", turn: 1, start: prompt.length, end: prompt.length + g.outputIds.length },
        ],
        logprobs: [...prompt.map(() => null), ...(g.outputLogprobs ?? [])],
      };
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, `${JSON.stringify(record)}\n`);
      return path;
    } finally {
      await client.close();
    }
  }

  function stats(rows: BisectRow[], knob: string) {
    const r = rows.find((x) => x.knob === knob);
    if (r?.status !== "ran") throw new Error(`${knob}: ${JSON.stringify(r)}`);
    return r.stats;
  }

  it("the temperature knob explains a T = 0.7 row; batch noise shows on the batch knob only", async () => {
    const logits = await startSim({ port: 0 }, { logitModel: true, batchNoise: 0.05 });
    try {
      const path = await sampledRow(logits, "t07");
      const { code, out, err } = await runCli(["bisect", path, "--sglang", logits.url, "--json"]);
      expect(err).toBe("");
      expect(code).toBe(0);
      const { rows } = rowsOf(out);
      // Rescored at T = 1, the sampled T = 0.7 lane differs; scaled to 0.7 over the whole support
      // (the simulator lists all 16 candidates), it is the sampled lane to rounding.
      expect(stats(rows, "reference").meanAbsDelta).toBeGreaterThan(0.01);
      expect(stats(rows, "temperature").maxAbsDelta).toBeLessThan(1e-9);
      expect(stats(rows, "temperature").compared).toBe(stats(rows, "reference").compared);
      // Alone and token by token the noise is absent; inside a batch of 8 it moves every token.
      expect(stats(rows, "decode").meanAbsDelta).toBeCloseTo(
        stats(rows, "reference").meanAbsDelta,
        12,
      );
      expect(
        Math.abs(stats(rows, "batch").meanAbsDelta - stats(rows, "reference").meanAbsDelta),
      ).toBeGreaterThan(1e-4);
    } finally {
      await logits.close();
    }
  });
});
