import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { FormatId } from "../../src/core/formats/types";
import { fixtureLines } from "../../src/test/fixtureFiles";
import { expectSoundRead, type HostileLine, hostileLines } from "../../test-support/hostileCorpus";
import { buildApp } from "../app";
import { validateFile } from "../commands/validate";
import { parseServerConfig } from "../config";
import { driftFile } from "../drift/driftFile";
import { fixedDriftTokenizer } from "../drift/driftTokenizers";
import { createServices, type Services } from "../services";
import { loadTokenizer } from "../tokenizers/loadTokenizer";

const SEEDS = [
  "reference-rollout-lens.jsonl",
  "reference-slime.jsonl",
  "reference-atropos.jsonl",
  "reference-strands.jsonl",
  "reference-verl.jsonl",
].flatMap(fixtureLines);
const HINTS: readonly (FormatId | undefined)[] = [
  undefined,
  "rollout-lens/v1",
  "slime",
  "atropos",
  "strands",
  "verl",
];
const CORPUS: HostileLine[] = hostileLines(SEEDS, 10_000, 40, 20_260_522);
/** The files the `validate` test writes, read again by the `drift` test. */
const hostileFiles: string[] = [];

function familyCounts(lines: readonly HostileLine[]): string {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.family, (counts.get(l.family) ?? 0) + 1);
  return [...counts].map(([f, n]) => `${f} ${n}`).join(", ");
}

// Tens of thousands of reads: minutes on a loaded 2-core machine, seconds on a quiet one.
describe(`${CORPUS.length} hostile lines`, { timeout: 180_000 }, () => {
  it("through readRolloutLine with every format hint and auto: no throw, every error names its line", () => {
    let calls = 0;
    let errors = 0;
    let loaded = 0;
    CORPUS.forEach((line, i) => {
      const lineNo = i + 1;
      for (const hint of HINTS) {
        const result = readRolloutLine(line.text, lineNo, hint, "hostile.jsonl");
        calls++;
        // Whatever loads must satisfy the model: lengths agree, ids are token ids.
        const kind = expectSoundRead(result, lineNo, line.text.slice(0, 200));
        if (kind === "error") errors++;
        else if (kind === "trajectories") loaded++;
      }
    });
    console.log(
      `hostile lines → readRolloutLine: ${CORPUS.length} inputs × ${HINTS.length} hints = ${calls} reads, ` +
        `${errors} errors (all naming their line), ${loaded} loaded valid; families: ${familyCounts(CORPUS)}`,
    );
  });

  it("through `validate` as files, with invalid UTF-8 bytes mixed in: every bad line reported by number", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rl-hostile-"));
    const perFile = 1_000;
    let totalLines = 0;
    let totalErrors = 0;
    for (let f = 0; f * perFile < CORPUS.length; f++) {
      const chunk = CORPUS.slice(f * perFile, (f + 1) * perFile);
      const parts: Buffer[] = [];
      chunk.forEach((line, i) => {
        parts.push(Buffer.from(line.text.replace(/\n/g, " "), "utf8"));
        // Every 50th line also gets raw bytes that are not UTF-8.
        if (i % 50 === 0) parts.push(Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]));
        parts.push(Buffer.from("\n"));
      });
      const path = join(dir, `hostile-${f}.jsonl`);
      writeFileSync(path, Buffer.concat(parts));
      const report = await validateFile(path);
      expect(report.readError).toBeUndefined();
      expect(report.lines).toBe(chunk.length);
      for (const error of report.errors) {
        expect(error.line).toBeGreaterThanOrEqual(1);
        expect(error.line).toBeLessThanOrEqual(chunk.length);
      }
      expect(report.valid + report.blank + report.errors.length).toBe(chunk.length);
      totalLines += report.lines;
      totalErrors += report.errors.length;
    }
    console.log(
      `hostile lines → validate: ${totalLines} lines in ${Math.ceil(CORPUS.length / perFile)} files, ${totalErrors} errors reported by line`,
    );
    hostileFiles.push(
      ...Array.from({ length: Math.ceil(CORPUS.length / perFile) }, (_, f) =>
        join(dir, `hostile-${f}.jsonl`),
      ),
    );
  });

  it("through `drift` (every mode): no crash, every bad line or unreadable trajectory named by line", async () => {
    const tokenizer = await loadTokenizer("qwen3");
    let checked = 0;
    let errors = 0;
    for (const path of hostileFiles) {
      const report = await driftFile(path, {
        tokenizers: fixedDriftTokenizer({ tokenizer }),
        modes: ["roundtrip", "template", "text"],
      });
      expect(report.readError).toBeUndefined();
      for (const error of report.errors) {
        expect(error.line).toBeGreaterThanOrEqual(1);
        expect(error.message.length).toBeGreaterThan(0);
      }
      for (const t of report.unchecked) {
        expect(t.line).toBeGreaterThanOrEqual(1);
        expect(t.reason.length).toBeGreaterThan(0);
      }
      checked += report.trajectories.length;
      errors += report.errors.length + report.unchecked.length;
    }
    expect(hostileFiles.length).toBeGreaterThan(0);
    console.log(
      `hostile lines → drift: ${hostileFiles.length} files, ${checked} trajectories checked, ${errors} errors named by line`,
    );
  });
});

describe("hostile request bodies through the HTTP API", { timeout: 180_000 }, () => {
  let services: Services;
  let app: ReturnType<typeof buildApp>;
  beforeAll(async () => {
    const data = mkdtempSync(join(tmpdir(), "rl-hostile-api-"));
    services = await createServices(parseServerConfig({ data, maxBodyBytes: 1024 * 1024 }));
    app = buildApp(services);
  });
  afterAll(() => services.close());

  it("never answers 500 and every 400 names the field or says what is wrong", async () => {
    const statuses = new Map<number, number>();
    const bodies = CORPUS.filter((_, i) => i % 4 === 0);
    const targets = ["/api/episodes", "/api/episodes/ep_0000000000000000/human-reply"];
    let sent = 0;
    for (const [i, line] of bodies.entries()) {
      const path = targets[i % targets.length] ?? "/api/episodes";
      const res = await app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: line.text,
      });
      sent++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([400, 409, 413, 201], `${res.status} for ${line.text.slice(0, 120)}`).toContain(
        res.status,
      );
      if (res.status === 400) {
        const { error } = (await res.json()) as { error: string };
        expect(error).toMatch(/JSON|:|body/);
      } else {
        await res.body?.cancel();
      }
    }
    const health = await app.request("/api/health");
    expect(health.status).toBe(200);
    console.log(
      `hostile bodies → HTTP API: ${sent} POSTs, statuses ${[...statuses].map(([s, n]) => `${s}×${n}`).join(", ")}, 0 × 500, server healthy`,
    );
  });
});
