// The fuzz harness's child process (test-support/fuzz/harness.ts): reads one case per stdin line,
// writes the damaged file, reads it through its container's real reader and answers one line per
// case with the outcome, the time it took and the process's memory. A case that hangs or kills
// this process is what the harness exists to catch.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { validateFile } from "../../server/commands/validate";
import { FUZZ_CONTAINERS, type FuzzOutcome } from "./containers";
import type { FuzzCase } from "./harness";
import { mutate } from "./mutations";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-fuzz-"));
const seeds = new Map<string, readonly Uint8Array[]>();

async function validateOutcome(path: string): Promise<FuzzOutcome> {
  const report = await validateFile(path);
  if (report.readError !== undefined) return { kind: "rejected", messages: [report.readError] };
  return {
    kind: "ok",
    messages: report.errors.slice(0, 3).map((e) => `line ${e.line}: ${e.message}`),
  };
}

async function runCase(c: FuzzCase): Promise<FuzzOutcome> {
  const container = FUZZ_CONTAINERS.find((k) => k.name === c.container);
  if (!container) throw new Error(`no fuzz container "${c.container}"`);
  let bytes: Uint8Array;
  if (c.file !== undefined) bytes = new Uint8Array(readFileSync(c.file));
  else {
    let own = seeds.get(container.name);
    if (!own) {
      own = container.seeds();
      seeds.set(container.name, own);
    }
    bytes = mutate(own[c.seedIndex % own.length] ?? new Uint8Array(), c.seed);
  }
  const path = join(dir, `case.${container.ext}`);
  writeFileSync(path, bytes);
  return (container.read ?? validateOutcome)(path);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const c = JSON.parse(line) as FuzzCase;
  const started = performance.now();
  const outcome = await runCase(c).catch(
    (error: unknown): FuzzOutcome => ({
      kind: "rejected",
      messages: [`UNCAUGHT ${error instanceof Error ? error.stack : String(error)}`],
    }),
  );
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`${JSON.stringify({ ...outcome, ms, rss: process.memoryUsage().rss })}\n`);
}
rmSync(dir, { recursive: true, force: true });
