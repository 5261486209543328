import { spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { freePort } from "../../test-support/freePort";
import { runCli } from "../../test-support/runCli";
import { type Stub, sendJson, startStub } from "../../test-support/sglang/stubUpstream";
import { type RunningSim, startSim } from "../sim/start";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-rescore-guards-"));
const BIN = fileURLToPath(new URL("../../bin/rollout-lens.mjs", import.meta.url));

function write(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

/** A rescoring upstream: every input id scored by `value(k)`, after `delayMs`; counts overlap. */
function scoringStub(options: {
  value: (k: number) => number | null;
  delayMs?: number;
  model?: string;
}): Promise<Stub & { maxInFlight: () => number }> {
  let inFlight = 0;
  let max = 0;
  return startStub(async (req, res) => {
    if (req.path.endsWith("model_info")) {
      return sendJson(res, 200, { model_path: options.model ?? "Qwen/Qwen3-4B" });
    }
    if (req.path !== "/generate") return sendJson(res, 404, { detail: "Not Found" });
    inFlight += 1;
    max = Math.max(max, inFlight);
    await new Promise((r) => setTimeout(r, options.delayMs ?? 0));
    inFlight -= 1;
    const ids = (req.body as { input_ids: number[] }).input_ids;
    sendJson(res, 200, {
      text: "",
      output_ids: [],
      meta_info: {
        id: "r",
        finish_reason: { type: "length", length: 0 },
        prompt_tokens: ids.length,
        completion_tokens: 0,
        input_token_logprobs: ids.map((id, k) => [k === 0 ? null : options.value(k), id, null]),
      },
    });
  }).then((stub) => Object.assign(stub, { maxInFlight: () => max }));
}

const good = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
const llamaRows = fixtureLines("atropos-rubiks-trimmed.jsonl").slice(0, 1);

let qwenSim: RunningSim;
let anySim: RunningSim;
beforeAll(async () => {
  qwenSim = await startSim({ port: 0 }, { tokenizer: "qwen3" });
  anySim = await startSim({ port: 0 }, { isTokenizerPerRequest: true });
});
afterAll(async () => {
  await qwenSim.close();
  await anySim.close();
});

describe("rescore never writes over its input", () => {
  it.each([
    ["the same path", (input: string) => input],
    [
      "a symlink to it",
      (input: string) => {
        const link = `${input}.sym`;
        symlinkSync(input, link);
        return link;
      },
    ],
    [
      "a hard link to it",
      (input: string) => {
        const link = `${input}.hard`;
        linkSync(input, link);
        return link;
      },
    ],
  ])("--out as %s is refused, the input untouched", async (name, outOf) => {
    const input = write(`in-${name.replace(/\W/g, "")}.jsonl`, [good]);
    const before = readFileSync(input, "utf8");
    const result = await runCli(["rescore", input, "--sglang", qwenSim.url, "--out", outOf(input)]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/never written over an input/);
    expect(readFileSync(input, "utf8")).toBe(before);
  });

  it("removes a temporary file a killed run left, and keeps one of a live process", async () => {
    const input = write("stale.jsonl", [good]);
    const out = join(dir, "stale-out.jsonl");
    // No process has pid 2^22 + 1 (above Linux's pid_max default); the parent process is alive.
    writeFileSync(`${out}.rescoring-4194305`, "half a line");
    writeFileSync(`${out}.rescoring-${process.ppid}`, "another run");
    const result = await runCli(["rescore", input, "--sglang", qwenSim.url, "--out", out]);
    expect(result.code).toBe(0);
    expect(result.err).toContain("rescoring-4194305, left by an interrupted run");
    expect(existsSync(`${out}.rescoring-4194305`)).toBe(false);
    expect(existsSync(`${out}.rescoring-${process.ppid}`)).toBe(true);
  });

  it.each(["SIGINT", "SIGTERM"] as const)(
    "removes its temporary file on %s",
    async (signal) => {
      const stub = await scoringStub({ value: () => -0.5, delayMs: 60_000 });
      const input = write(`signal-${signal}.jsonl`, [good]);
      const out = join(dir, `signal-${signal}-out.jsonl`);
      const child = spawn(
        process.execPath,
        [BIN, "rescore", input, "--sglang", stub.url, "--out", out],
        {
          stdio: "ignore",
        },
      );
      try {
        // The run is waiting for its first /generate: the temporary file exists.
        for (let i = 0; i < 600 && stub.count("/generate") === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(
          readdirSync(dir).filter((n) => n.startsWith(`signal-${signal}-out.jsonl.rescoring-`)),
        ).toHaveLength(1);
        child.kill(signal);
        const code = await new Promise<number | null>((r) => child.once("exit", r));
        expect(code).toBe(signal === "SIGINT" ? 130 : 143);
        expect(readdirSync(dir).filter((n) => n.startsWith(`signal-${signal}-out.jsonl`))).toEqual(
          [],
        );
      } finally {
        child.kill("SIGKILL");
        await stub.close();
      }
    },
    60_000,
  );
});

describe("rescore against a failing or wrong upstream", () => {
  it("stops at once on an unreachable upstream, saying why, and writes nothing", async () => {
    const port = await freePort();
    const input = write("down.jsonl", [good, good, good]);
    const out = join(dir, "down-out.jsonl");
    const started = Date.now();
    const result = await runCli([
      "rescore",
      input,
      "--sglang",
      `http://127.0.0.1:${port}`,
      "--out",
      out,
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(
      /cannot reach SGLang at http:\/\/127\.0\.0\.1:\d+: .*nothing was rescored/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    [
      "a logprob above 0",
      (k: number) => (k === 3 ? 5.5 : -0.25),
      /token 3 has logprob 5.5, outside \[-inf, 0\]/,
    ],
    ["only nulls", () => null, /all \d+ logprobs are null/],
  ])("rejects a lane with %s per trajectory and exits 1", async (_name, value, message) => {
    const stub = await scoringStub({ value });
    try {
      const input = write(`bad-values-${_name.length}.jsonl`, [good]);
      const out = join(dir, `bad-values-${_name.length}-out.jsonl`);
      const result = await runCli(["rescore", input, "--sglang", stub.url, "--out", out]);
      expect(result.code).toBe(1);
      expect(result.out).toMatch(message);
      expect(result.out).toContain("0 of 1 trajectories rescored");
      expect(readFileSync(out, "utf8")).toBe(`${good}\n`);
    } finally {
      await stub.close();
    }
  });

  it("rescores at most --concurrency trajectories at once, lines kept in order", async () => {
    const stub = await scoringStub({ value: (k) => -k / 100, delayMs: 40 });
    try {
      const input = write(
        "many.jsonl",
        Array.from({ length: 12 }, () => good),
      );
      const out = join(dir, "many-out.jsonl");
      const result = await runCli([
        "rescore",
        input,
        "--sglang",
        stub.url,
        "--out",
        out,
        "--concurrency",
        "3",
      ]);
      expect(result.code).toBe(0);
      expect(stub.maxInFlight()).toBe(3);
      expect(readFileSync(out, "utf8").split("\n").filter(Boolean)).toHaveLength(12);
      const one = await runCli([
        "rescore",
        input,
        "--sglang",
        stub.url,
        "--out",
        out,
        "--concurrency",
        "x",
      ]);
      expect(one.code).toBe(2);
      expect(one.err).toContain("--concurrency");
    } finally {
      await stub.close();
    }
  });

  it("refuses a Llama-3 row on a Qwen3 upstream, says which rule read the ids, and --force overrides", async () => {
    const input = write("llama.jsonl", llamaRows);
    const out = join(dir, "llama-out.jsonl");
    const refused = await runCli(["rescore", input, "--sglang", qwenSim.url, "--out", out]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("0 of 2 trajectories rescored");
    expect(refused.out).toMatch(
      /family mismatch: the upstream serves qwen3 \(qwen3\), but token 0 is 128000, llama3's <\|begin_of_text\|>/,
    );
    expect(readFileSync(out, "utf8")).toBe(`${llamaRows[0]}\n`);
    const forced = await runCli([
      "rescore",
      input,
      "--sglang",
      qwenSim.url,
      "--out",
      out,
      "--force",
    ]);
    expect(forced.out).toContain("2 of 2 trajectories rescored");
  });

  it("rescores a Llama-3 row with an upstream that serves its family", async () => {
    const input = write("llama-ok.jsonl", llamaRows);
    const out = join(dir, "llama-ok-out.jsonl");
    const result = await runCli(["rescore", input, "--sglang", anySim.url, "--out", out]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("2 of 2 trajectories rescored");
    // The per-request simulator is not said to serve qwen3 (its /model_info's default) here.
    expect(result.out).toContain("the simulator scores each trajectory in its own ids' family");
    expect(result.out).not.toContain("the upstream serves");
    const read = readRolloutLine(readFileSync(out, "utf8").trim(), 1);
    if (read.kind !== "trajectories") throw new Error("not read back");
    const lane = read.trajectories[0]?.logprobLanes?.rescored ?? [];
    expect(lane.filter((v) => v !== null).length).toBeGreaterThan(1000);
  });
});
