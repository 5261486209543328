import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseJsonLine } from "../../src/core/formats/jsonLine";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { Trajectory } from "../../src/core/trajectory/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { runCli } from "../../test-support/runCli";
import { tokenIdsOf } from "../rescore/rescoreTrajectory";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";

let sim: RunningSim;
let direct: SglangClient;
const dir = mkdtempSync(join(tmpdir(), "rollout-lens-rescore-"));

beforeAll(async () => {
  sim = await startSim({ port: 0 });
  direct = new SglangClient({ upstreams: sim.url, health: { intervalMs: 0, reprobeMs: 60_000 } });
});
afterAll(async () => {
  await direct.close();
  await sim.close();
});

function object(text: string): Record<string, unknown> {
  const parsed = parseJsonLine(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value as Record<string, unknown>;
}

function without(o: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...o };
  for (const k of keys) delete copy[k];
  return copy;
}

function trajectories(text: string): Trajectory[] {
  const read = readRolloutLine(text, 1);
  if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
  return read.trajectories;
}

describe("rollout-lens rescore", () => {
  it.each([
    ["reference-rollout-lens.jsonl"],
    ["reference-strands.jsonl"],
    ["reference-slime.jsonl"],
    ["reference-atropos.jsonl"],
  ])("%s: adds the rescored lane, format kept, every other field unchanged", async (name) => {
    const input = fixtureLines(name);
    const path = join(dir, name);
    const out = join(dir, `out-${name}`);
    writeFileSync(path, `${input.join("\n")}\n`);
    const { code, out: printed } = await runCli([
      "rescore",
      path,
      "--sglang",
      sim.url,
      "--out",
      out,
    ]);
    expect(code).toBe(0);
    const written = readFileSync(out, "utf8").split("\n").slice(0, -1);
    expect(written).toHaveLength(input.length);
    let count = 0;
    for (const [i, line] of written.entries()) {
      const before = input[i] ?? "";
      const after = object(line);
      expect(without(after, "logprob_lanes", "logprob_lane_info")).toEqual(object(before));
      // The original bytes are kept; the lane is appended.
      expect(line.startsWith(before.trimEnd().slice(0, -1))).toBe(true);
      const read = trajectories(line);
      const originals = trajectories(before);
      expect(read.map((t) => t.format)).toEqual(originals.map((t) => t.format));
      for (const [k, t] of read.entries()) {
        const expected = await direct.rescore({
          inputIds: tokenIdsOf(originals[k] as Trajectory),
          temperature:
            (originals[k]?.samplingParams?.temperature as number | undefined) ?? undefined,
        });
        expect(t.logprobLanes?.rescored).toEqual(expected.lane);
        expect(t.logprobLaneInfo?.rescored?.source).toContain(sim.url);
        count += 1;
      }
    }
    expect(printed).toContain(`${count} of ${count} trajectories rescored`);
  });

  it("keeps bad and text-only lines unchanged, says so, and exits 1", async () => {
    const good = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
    const path = join(dir, "mixed.jsonl");
    const out = join(dir, "mixed-out.jsonl");
    writeFileSync(path, `${good}\n\n{"format":"rollout-lens/v1","id":"x"}\n`);
    const { code, out: printed } = await runCli([
      "rescore",
      path,
      "--sglang",
      sim.url,
      "--out",
      out,
    ]);
    expect(code).toBe(1);
    const written = readFileSync(out, "utf8").split("\n");
    expect(written[1]).toBe("");
    expect(written[2]).toBe('{"format":"rollout-lens/v1","id":"x"}');
    expect(printed).toMatch(/line 3 kept unchanged: /);
    const verl = join(dir, "verl.jsonl");
    writeFileSync(verl, `${fixtureLines("reference-verl.jsonl")[0]}\n`);
    const text = await runCli([
      "rescore",
      verl,
      "--sglang",
      sim.url,
      "--out",
      join(dir, "v.jsonl"),
    ]);
    expect(text.code).toBe(1);
    expect(text.out).toContain("no token ids (text-only record)");
  });

  it("names a table's records as records: its count and the ones kept unchanged", async () => {
    // Record 1's prompt spans two lines of the CSV's text: "line 2" would point inside it.
    const csv = join(dir, "scores.csv");
    writeFileSync(csv, 'prompt,completion,reward\n"a\nb",c,1\nd,e,high\n');
    const out = join(dir, "scores.jsonl");
    const { code, out: printed } = await runCli([
      "rescore",
      csv,
      "--sglang",
      sim.url,
      "--out",
      out,
    ]);
    expect(code).toBe(1);
    const lines = printed.split("\n");
    expect(lines[0]).toBe(
      `${csv} -> ${out}: 0 of 1 trajectories rescored (lane rescored), 2 records`,
    );
    expect(lines).toContain("  record 1 kept unchanged: L1: no token ids (text-only record)");
    expect(lines[2]).toMatch(/^ {2}record 2 kept unchanged: reward: /);
    // Written back one record per JSON line, each as it was.
    expect(readFileSync(out, "utf8").split("\n")[0]).toBe(
      '{"prompt":"a\\nb","completion":"c","reward":1}',
    );
  });

  it("many trajectories waiting on a slot print no MaxListeners warning", async () => {
    const good = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
    const path = join(dir, "many.jsonl");
    writeFileSync(path, `${Array.from({ length: 24 }, () => good).join("\n")}\n`);
    const warn = vi.spyOn(process, "emitWarning");
    try {
      const args = ["rescore", path, "--sglang", sim.url, "--out", join(dir, "many-out.jsonl")];
      const { code } = await runCli([...args, "--concurrency", "8"]);
      expect(code).toBe(0);
      const warned = warn.mock.calls.map((call) => String(call[0]));
      expect(warned.filter((w) => /MaxListeners|memory leak/.test(w))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it("needs --sglang and --out, and a readable FILE", async () => {
    expect((await runCli(["rescore", "x.jsonl", "--out", "y"])).code).toBe(2);
    const missing = await runCli([
      "rescore",
      join(dir, "nope.jsonl"),
      "--sglang",
      sim.url,
      "--out",
      join(dir, "n.jsonl"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("nope.jsonl");
  });
});
