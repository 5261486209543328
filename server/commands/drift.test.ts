import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer as NativeTokenizer } from "tokenizers";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { firstDivergence } from "../../src/core/drift/detectDrift";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { fixtureLines, fixturePath } from "../../src/test/fixtureFiles";
import { runCommand } from "../../test-support/runCli";
import { loadTokenizer, resolveTokenizerDir } from "../tokenizers/loadTokenizer";
import { driftCommand } from "./drift";

const run = (args: string[]) => runCommand(driftCommand, args);

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-drift-"));
function tempFile(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const reportSchema = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      format: z.string().nullable(),
      tokenizer: z.object({ name: z.string(), reason: z.string(), why: z.string() }).nullable(),
      exit_code: z.number(),
      trajectories: z.number(),
      checked: z.number(),
      unchecked: z.number(),
      drifted: z.number(),
      unchecked_trajectories: z.array(
        z.object({ line: z.number(), row: z.number(), id: z.string(), reason: z.string() }),
      ),
      errors: z.array(z.object({ line: z.number(), message: z.string() })),
      results: z.array(
        z.object({
          line: z.number(),
          row: z.number(),
          id: z.string(),
          mode: z.string(),
          len_tito: z.number(),
          len_retok: z.number(),
          text_equal: z.boolean(),
          first_divergence_index: z.number().nullable(),
          regions: z.array(
            z.object({
              t: z.tuple([z.number(), z.number()]),
              r: z.tuple([z.number(), z.number()]),
              bytes: z.tuple([z.number(), z.number()]),
              text: z.string(),
              classes: z.array(z.string()),
              trainable_affected: z.number(),
            }),
          ),
          trainable_tokens_affected: z.number(),
        }),
      ),
    }),
  ),
});

/** First divergence of `encode(decode(ids))` by the native HF tokenizer (Rust): the reference. */
async function nativeDivergence(
  name: string,
  rows: readonly number[][],
): Promise<(number | null)[]> {
  const native = NativeTokenizer.fromFile(`${resolveTokenizerDir(name)}/tokenizer.json`);
  const texts = await native.decodeBatch(
    rows.map((r) => [...r]),
    false,
  );
  const encoded = await native.encodeBatch(texts, { addSpecialTokens: false });
  return rows.map((r, i) => firstDivergence(r, encoded[i]?.getIds() ?? []) ?? null);
}

let qwen: Tokenizer;
let llama: Tokenizer;
beforeAll(async () => {
  [qwen, llama] = await Promise.all([loadTokenizer("qwen3"), loadTokenizer("llama3")]);
}, 60_000); // two real tokenizers: slow on a busy machine

const QWEN_IM_END = 151645;
const chatPrompt = (user: string) => `<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

/** slime Sample lines: clean, E1 resegment in the response, a bad line, a length-cut merge. */
function slimeLines(): { lines: string[]; rows: number[][] } {
  const sample = (prompt: number[], response: number[], mask?: (0 | 1)[]) => ({
    tokens: [...prompt, ...response],
    response_length: response.length,
    loss_mask: mask ?? response.map(() => 1),
    rollout_log_probs: response.map(() => -0.25),
    status: "completed",
    reward: 1,
  });
  const p = qwen.encode(chatPrompt("Compute f(x)."));
  const clean = [...qwen.encode("Sure: f(x) = 2x."), QWEN_IM_END];
  const e1 = [...qwen.encode('{"expr": "f(x'), 9940, 11248, QWEN_IM_END];
  const cutModel = [...qwen.encode("Done"), 13];
  const cutTool = qwen.encode(`\n${chatPrompt("go on")}`);
  const cut = [...cutModel, ...cutTool, ...qwen.encode("OK"), QWEN_IM_END];
  const cutMask: (0 | 1)[] = [
    ...cutModel.map((): 0 | 1 => 1),
    ...cutTool.map((): 0 | 1 => 0),
    1,
    1,
  ];
  const samples = [sample(p, clean), sample(p, e1), sample(p, cut, cutMask)];
  return {
    lines: [
      JSON.stringify(samples[0]),
      JSON.stringify(samples[1]),
      '{"tokens": [1, 2, 3], "response_length": ',
      JSON.stringify(samples[2]),
    ],
    rows: samples.map((s) => s.tokens),
  };
}

/** An atropos group of Llama-3 rows: clean, and one with ` hel` + `lo` for ` hello`. */
function atroposLines(): { lines: string[]; rows: number[][] } {
  const head = llama.encode(
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nGreet me.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
  );
  const eot = llama.encode("<|eot_id|>");
  const clean = [...head, ...llama.encode("Say hello, friend."), ...eot];
  const split = [
    ...head,
    ...llama.encode("Say"),
    ...llama.encode(" hel"),
    ...llama.encode("lo"),
    ...llama.encode(", friend."),
    ...eot,
  ];
  const rows = [clean, split];
  const group = {
    tokens: rows,
    masks: rows.map((r) => r.map((id, k) => (k < head.length ? -100 : id))),
    scores: [1, 0],
  };
  return { lines: [JSON.stringify(group)], rows };
}

/** A strands-tito/v1 episode with a length-cut turn ending in `.` before the `\n` separator. */
function strandsLines(): { lines: string[]; rows: number[][] } {
  const p = qwen.encode(chatPrompt("Finish the sentence."));
  const m1 = [...qwen.encode("It ends here"), 13];
  const t1 = qwen.encode(`\n${chatPrompt("continue")}`);
  const m2 = [...qwen.encode("Fine."), QWEN_IM_END];
  const ids = [...p, ...m1, ...t1, ...m2];
  const line = {
    format: "strands-tito/v1",
    episode_id: "ep-cut",
    token_ids: ids,
    loss_mask: [...p.map(() => 0), ...m1.map(() => 1), ...t1.map(() => 0), ...m2.map(() => 1)],
    logprobs: ids.map((_, k) => (k === 0 ? null : -0.5)),
    segment_info: [
      [false, p.length],
      [true, m1.length],
      [false, t1.length],
      [true, m2.length],
    ],
    stop_reason: "end_turn",
  };
  return { lines: [JSON.stringify(line)], rows: [ids] };
}

describe("rollout-lens drift", () => {
  it.each([
    ["slime", "qwen3", slimeLines, 2], // 2: its line 3 is bad, so not every trajectory was checked
    ["atropos", "llama3", atroposLines, 1],
    ["strands", "qwen3", strandsLines, 1],
  ])(
    "reports the native tokenizer's first divergences on a %s file",
    async (format, name, build, exitCode) => {
      const { lines, rows } = build();
      const path = tempFile(`${format}.jsonl`, lines);
      const { code, out } = await run([path, "--tokenizer", name, "--json"]);
      const report = reportSchema.parse(JSON.parse(out));
      const file = report.files[0];
      const expected = await nativeDivergence(name, rows);
      expect(file?.results.map((r) => r.first_divergence_index)).toEqual(expected);
      expect(expected.some((v) => v !== null)).toBe(true);
      expect(code).toBe(exitCode);
      expect(file?.format).toBe(format);
      expect(file?.drifted).toBe(expected.filter((v) => v !== null).length);
      expect(file?.results.every((r) => r.mode === "roundtrip")).toBe(true);
    },
  );

  it("keeps going past a bad line, reports it with its line number and exits 2", async () => {
    const path = tempFile("slime-bad.jsonl", slimeLines().lines);
    const { code, out } = await run([path, "--json"]);
    expect(code).toBe(2);
    const file = reportSchema.parse(JSON.parse(out)).files[0];
    expect(file?.exit_code).toBe(2);
    expect(file?.errors.map((e) => e.line)).toEqual([3]);
    expect(file?.results.map((r) => [r.line, r.row])).toEqual([
      [1, 0],
      [2, 0],
      [4, 0],
    ]);
    const cut = file?.results[2]?.regions[0];
    expect(cut?.classes).toEqual(["merge", "segment_boundary", "mask_straddle"]);
    expect(cut?.trainable_affected).toBe(1);
  });

  it("prints the tokenizer, one line per drifted trajectory, the bad lines and a summary", async () => {
    const path = tempFile("slime-human.jsonl", slimeLines().lines);
    const { code, out } = await run([path]);
    expect(code).toBe(2); // the bad line 3 was not checked
    expect(out.split("\n")).toEqual([
      `${path}: tokenizer qwen3 (recognised from the first token ids)`,
      expect.stringMatching(
        /:2 L2 roundtrip: first divergence at token \d+, 1 region\(s\) \[resegment\]/,
      ),
      expect.stringMatching(/:4 L4 roundtrip: .*\[merge,segment_boundary,mask_straddle\]/),
      expect.stringMatching(/: line 3: /),
      `${path}: slime, 3 trajectories (3 checked, 0 unchecked), 2 drifted (66.7% of checked), 3 trainable tokens affected, 1 bad lines`,
    ]);
    const clean = tempFile("slime-drift-only.jsonl", [slimeLines().lines[1] ?? ""]);
    expect((await run([clean])).code).toBe(1); // every trajectory checked, one drifts
  });

  it("finds no drift in real Llama-3 atropos rows (exit 0) and runs every mode", async () => {
    const { code, out } = await run([
      fixturePath("atropos-rubiks-trimmed.jsonl"),
      "--tokenizer",
      "llama3",
      "--json",
    ]);
    expect(code).toBe(0);
    const file = reportSchema.parse(JSON.parse(out)).files[0];
    expect(file?.trajectories).toBe(fixtureLines("atropos-rubiks-trimmed.jsonl").length * 2);
    expect(file?.results.every((r) => r.first_divergence_index === null)).toBe(true);
    const all = await run([
      fixturePath("atropos-rubiks-trimmed.jsonl"),
      "--tokenizer",
      "llama3",
      "--mode",
      "all",
      "--json",
    ]);
    const report = JSON.parse(all.out);
    const results = reportSchema.parse(report).files[0]?.results ?? [];
    expect(new Set(results.map((r) => r.mode))).toEqual(new Set(["roundtrip", "template"]));
    // The bundled Llama-3 template writes an assistant header after the last message whatever
    // add_generation_prompt says; a record that stops at <|eot_id|> does not drift for it.
    expect(results.filter((r) => r.first_divergence_index !== null)).toEqual([]);
    // atropos rows record no decoded text: the text check did not run, so nothing is all green.
    const n = fixtureLines("atropos-rubiks-trimmed.jsonl").length * 2;
    expect(report.files[0].modes).toEqual({
      roundtrip: { checked: n, unchecked: 0, drifted: 0 },
      template: { checked: n, unchecked: 0, drifted: 0 },
      text: { checked: 0, unchecked: n, drifted: 0 },
    });
    expect(report.files[0].unchecked).toBe(n);
    expect(all.code).toBe(2);
  });

  it.each([
    ["an unreadable file", () => [join(dir, "missing.jsonl")], 2],
    ["a file with no valid line", () => [tempFile("junk.jsonl", ["not json", "{}"])], 2],
    ["a clean file", () => [tempFile("clean.jsonl", [slimeLines().lines[0] ?? ""])], 0],
  ])("exits with the right code for %s", async (_name, files, code) => {
    expect((await run([...files(), "--json"])).code).toBe(code);
  });

  it("gives the same report on two worker threads (--jobs 2) as in process", async () => {
    const path = tempFile("slime-jobs.jsonl", [...slimeLines().lines, ...slimeLines().lines]);
    const single = await run([path, "--json"]);
    const pooled = await run([path, "--json", "--jobs", "2"]);
    expect(pooled.code).toBe(single.code);
    expect(JSON.parse(pooled.out)).toEqual(JSON.parse(single.out));
  });

  it("rejects unknown flags values", async () => {
    const noModel = await run(["x.jsonl", "--tokenizer", join(dir, "no-such-model")]);
    expect(noModel.code).toBe(2);
    expect(noModel.err).toMatch(
      /^drift: tokenizer .*no-such-model: not a known family \(qwen3, .*\) and no folder at .*expected a family name or the path/,
    );
    expect((await run(["x.jsonl", "--jobs", "0"])).code).toBe(2);
    expect((await run(["x.jsonl", "--mode", "fast"])).code).toBe(2);
    expect((await run(["x.jsonl", "--format", "verl"])).code).toBe(2);
    expect((await run([])).code).toBe(2);
  });
});

/** The token rows of the trimmed real Llama-3 atropos fixture, in file order. */
function atroposFixtureRows(): number[][] {
  const groupSchema = z.object({ tokens: z.array(z.array(z.number())) });
  return fixtureLines("atropos-rubiks-trimmed.jsonl").flatMap(
    (line) => groupSchema.parse(JSON.parse(line)).tokens,
  );
}

/** A slime line of `tokens` whose last `response` ids are the (trained) response. */
function slimeLine(tokens: readonly number[], response: number): string {
  return JSON.stringify({
    tokens,
    response_length: response,
    loss_mask: Array.from({ length: response }, () => 1),
    rollout_log_probs: Array.from({ length: response }, () => -0.5),
    status: "completed",
    reward: 0,
  });
}

describe("rollout-lens drift: the tokenizer is chosen per file, as the browser chooses", () => {
  const LLAMA = fixturePath("atropos-rubiks-trimmed.jsonl");

  it("a real Llama-3 atropos file with no flags: llama3 from the ids, no drift (the native tokenizer agrees)", async () => {
    const { code, out } = await run([LLAMA, "--json"]);
    const file = reportSchema.parse(JSON.parse(out)).files[0];
    expect(file?.tokenizer).toEqual({
      name: "llama3",
      reason: "ids",
      why: "recognised from the first token ids",
    });
    const rows = atroposFixtureRows();
    const native = await nativeDivergence("llama3", rows);
    expect(native.every((v) => v === null)).toBe(true);
    expect(file?.results.map((r) => r.first_divergence_index)).toEqual(native);
    expect([file?.checked, file?.unchecked, file?.drifted]).toEqual([rows.length, 0, 0]);
    expect(code).toBe(0);
    const human = await run([LLAMA]);
    expect(human.out.split("\n")[0]).toBe(
      `${LLAMA}: tokenizer llama3 (recognised from the first token ids)`,
    );
    expect(human.code).toBe(0);
  });

  it("a Qwen3 file still gets qwen3, and a record naming its model is followed", async () => {
    const qwenPath = tempFile("qwen-auto.jsonl", [slimeLines().lines[0] ?? ""]);
    const qwenFile = reportSchema.parse(JSON.parse((await run([qwenPath, "--json"])).out)).files[0];
    expect(qwenFile?.tokenizer).toMatchObject({ name: "qwen3", reason: "ids" });
    const recorded = await run([fixturePath("reference-rollout-lens.jsonl"), "--json"]);
    expect(reportSchema.parse(JSON.parse(recorded.out)).files[0]?.tokenizer).toMatchObject({
      name: "qwen3",
      reason: "recorded",
    });
  });

  it("files of two families in one run: each file gets its own tokenizer", async () => {
    const qwenPath = tempFile("qwen-then-llama.jsonl", [slimeLines().lines[0] ?? ""]);
    const { code, out } = await run([qwenPath, LLAMA, "--json"]);
    const names = reportSchema.parse(JSON.parse(out)).files.map((f) => f.tokenizer?.name);
    expect(names).toEqual(["qwen3", "llama3"]);
    expect(code).toBe(0);
  });

  it("no false green: 9 lines, 8 of them bad or unchecked, exit 2 with each counted by line", async () => {
    const good = slimeLines().lines[0] ?? "";
    const prompt = qwen.encode(chatPrompt("hi"));
    // Ids past Qwen3's vocabulary (151669 ids): these rows cannot be checked with it.
    const outside = slimeLine([...prompt, 200_000, 200_001, QWEN_IM_END], 3);
    const lines = [
      good,
      "{",
      outside,
      "not json",
      outside,
      '{"tokens": 1}',
      outside,
      "[]",
      outside,
    ];
    const path = tempFile("nine-lines.jsonl", lines);
    const { code, out } = await run([path, "--json"]);
    expect(code).toBe(2);
    const file = reportSchema.parse(JSON.parse(out)).files[0];
    expect(file?.exit_code).toBe(2);
    expect([file?.trajectories, file?.checked, file?.unchecked, file?.drifted]).toEqual([
      5, 1, 4, 0,
    ]);
    expect(file?.errors.map((e) => e.line)).toEqual([2, 4, 6, 8]);
    expect(file?.unchecked_trajectories.map((t) => t.line)).toEqual([3, 5, 7, 9]);
    expect(file?.unchecked_trajectories[0]?.reason).toBe(
      "tokenizer mismatch: 2 token id(s) outside qwen3's vocabulary (ids 0-151668), " +
        `the first 200000 at token ${prompt.length}: the ids are not qwen3's`,
    );
    const human = await run([path]);
    expect(human.code).toBe(2);
    expect(human.out).toContain(
      `${path}: 4 unchecked (line 3, 5, 7, 9): tokenizer mismatch: 2 token id(s) outside qwen3's`,
    );
    expect(human.out).toContain("5 trajectories (1 checked, 4 unchecked), 0 drifted");
  });

  it("--tokenizer still overrides, but ids that cannot be its own are unchecked, never 'no drift'", async () => {
    // Qwen ids under llama3: past its vocabulary.
    const qwenPath = tempFile("qwen-forced-llama.jsonl", slimeLines().lines.slice(0, 2));
    const asLlama = await run([qwenPath, "--tokenizer", "llama3", "--json"]);
    const llamaFile = reportSchema.parse(JSON.parse(asLlama.out)).files[0];
    expect(asLlama.code).toBe(2);
    expect(llamaFile?.tokenizer).toMatchObject({ name: "llama3", reason: "picked" });
    expect([llamaFile?.checked, llamaFile?.unchecked, llamaFile?.drifted]).toEqual([0, 2, 0]);
    expect(llamaFile?.unchecked_trajectories[0]?.reason).toMatch(
      /outside llama3's vocabulary \(ids 0-128255\), the first 151644 at token 0/,
    );
    // Llama-3 ids under qwen3: inside its vocabulary, but the signature says llama3 (today: all drift).
    const asQwen = await run([LLAMA, "--tokenizer", "qwen3", "--json"]);
    const qwenFile = reportSchema.parse(JSON.parse(asQwen.out)).files[0];
    expect(asQwen.code).toBe(2);
    expect([qwenFile?.checked, qwenFile?.unchecked, qwenFile?.drifted]).toEqual([0, 4, 0]);
    expect(qwenFile?.unchecked_trajectories[0]?.reason).toBe(
      "tokenizer mismatch: token 0 is 128000, llama3's <|begin_of_text|>, which qwen3 reads as " +
        `${JSON.stringify(qwen.decode([128000]))}: the ids are llama3's, not qwen3's`,
    );
  });

  it("a later row whose signature contradicts the file's tokenizer is unchecked, the rest checked", async () => {
    const llamaRow = atroposFixtureRows()[0] ?? [];
    const mixed = [slimeLines().lines[0] ?? "", slimeLine(llamaRow, 10)];
    const path = tempFile("mixed-families.jsonl", mixed);
    const { code, out } = await run([path, "--json"]);
    const file = reportSchema.parse(JSON.parse(out)).files[0];
    expect(file?.tokenizer?.name).toBe("qwen3");
    expect(file?.checked).toBe(1);
    expect(file?.unchecked_trajectories.map((t) => [t.line, t.reason])).toEqual([
      [2, expect.stringContaining("the ids are llama3's, not qwen3's")],
    ]);
    expect(code).toBe(2);
  });
});

describe("rollout-lens drift on a file with no token ids", () => {
  it("a verl text dump is unchecked, says why and exits 2 (never '0 drifted')", async () => {
    const { code, out } = await run([fixturePath("reference-verl.jsonl"), "--json"]);
    const file = (JSON.parse(out) as { files: Record<string, unknown>[] }).files[0];
    expect(code).toBe(2);
    // No tokenizer is loaded or named for a file that has no ids to decode.
    expect(file).toMatchObject({
      format: "verl",
      tokenizer: null,
      checked: 0,
      unchecked: 1,
      drifted: 0,
    });
    expect(JSON.stringify(file?.unchecked_trajectories)).toContain("decoded text only");
  });
});
