import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../src/test/fixtureFiles";
import { main } from "../cli";

// Every command that reports checks, in every mode, on every format's reference file: what it
// could not check is counted `unchecked` in --json and makes the exit code 2, never a green 0/1.

async function run(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: () => {} });
  return { code, json: JSON.parse(out.join("")) };
}

type FileJson = Record<string, unknown> & { unchecked: number; trajectories?: number };
const firstFile = (json: Record<string, unknown>) => (json.files as FileJson[])[0] as FileJson;

/** Trajectories per reference file, and which drift checks have input there (ids, messages, texts). */
const FORMATS: Readonly<
  Record<string, { n: number; ids: number; messages: number; texts: number }>
> = {
  "rollout-lens": { n: 1, ids: 1, messages: 0, texts: 1 },
  slime: { n: 1, ids: 1, messages: 0, texts: 1 },
  atropos: { n: 2, ids: 2, messages: 2, texts: 0 },
  strands: { n: 1, ids: 1, messages: 0, texts: 0 },
  verl: { n: 1, ids: 0, messages: 0, texts: 0 },
  atif: { n: 6, ids: 5, messages: 5, texts: 0 },
  "nemo-rl": { n: 2, ids: 2, messages: 0, texts: 0 },
  prime: { n: 2, ids: 0, messages: 0, texts: 0 },
  art: { n: 2, ids: 0, messages: 0, texts: 0 },
};

/** Trajectories a drift mode cannot check in a reference file. */
function expectedUnchecked(f: (typeof FORMATS)[string], mode: string): number {
  const checkable = { roundtrip: f.ids, template: f.messages, text: f.texts };
  if (mode === "all") return f.n - Math.min(f.ids, f.messages, f.texts);
  return f.n - (checkable[mode as keyof typeof checkable] ?? 0);
}

describe("every command × mode × format counts what it could not check", () => {
  for (const [format, f] of Object.entries(FORMATS)) {
    const path = fixturePath(`reference-${format}.jsonl`);
    it.each(["roundtrip", "template", "text", "all"])(
      `drift --mode %s on ${format}`,
      async (mode) => {
        const { code, json } = await run(["drift", path, "--mode", mode, "--json"]);
        const file = firstFile(json);
        expect(file.unchecked).toBe(expectedUnchecked(f, mode));
        expect(file.trajectories).toBe(f.n);
        if (file.unchecked > 0) expect(code).toBe(2);
        else expect([0, 1]).toContain(code);
        const modes = file.modes as Record<string, { checked: number; unchecked: number }>;
        for (const [m, counts] of Object.entries(modes)) {
          expect(counts.checked + counts.unchecked, m).toBe(f.n);
        }
      },
    );

    it(`mismatch on ${format}: a trajectory not compared is unchecked, exit 2`, async () => {
      const { code, json } = await run(["mismatch", path, "--json"]);
      const file = firstFile(json);
      expect(file.unchecked).toBe((file.skipped as unknown[]).length);
      expect(code).toBe(file.unchecked > 0 ? 2 : code);
      if (f.ids === 0) expect(file.unchecked).toBe(f.n);
    });

    it(`validate on ${format}: every line checked, exit 0`, async () => {
      expect((await run(["validate", path, "--json"])).code).toBe(0);
    });
  }

  it("validate and drift on a file with nothing readable: exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rollout-lens-matrix-"));
    const junk = join(dir, "junk.jsonl");
    writeFileSync(junk, "not json\n{}\n");
    expect((await run(["validate", junk, "--json"])).code).toBe(2);
    for (const mode of ["roundtrip", "template", "text", "all"]) {
      expect((await run(["drift", junk, "--mode", mode, "--json"])).code).toBe(2);
    }
  });

  it("merge-reports of shards that could not check their rows: the sum is unchecked, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rollout-lens-matrix-"));
    const path = fixturePath("atropos-rubiks-rendered.jsonl");
    const reports: string[] = [];
    for (const shard of ["0/2", "1/2"]) {
      const out: string[] = [];
      const args = ["drift", path, "--mode", "template", "--tokenizer", "llama3", "--json"];
      await main([...args, "--shard", shard], { out: (t) => out.push(t), err: () => {} });
      const report = join(dir, `r${shard[0]}.json`);
      writeFileSync(report, out.join(""));
      reports.push(report);
    }
    const { code, json } = await run(["merge-reports", ...reports, "--json"]);
    const file = firstFile(json);
    expect(file.unchecked).toBe(2);
    expect(file.modes).toEqual({ template: { checked: 0, unchecked: 2, drifted: 0 } });
    expect(code).toBe(2);
  });
});
