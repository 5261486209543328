import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RANGE_BYTES } from "../../src/core/files/filesWire";

// 200 concurrent 16 MiB range reads took the server to 3.4 GB. The server runs in a
// child process here, so its peak resident memory (VmHWM) is its own, not the client's.

const READS = 200;
let dir: string;
let child: ChildProcess;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-range-memory-"));
  await writeFile(join(dir, "big.jsonl"), new Uint8Array(MAX_RANGE_BYTES + 1024).fill(0x61));
  const tsx = createRequire(import.meta.url).resolve("tsx/esm");
  const script = join(import.meta.dirname, "../../test-support/rangeServer/rangeServer.ts");
  child = spawn(
    process.execPath,
    ["--import", tsx, script, join(dir, "data"), join(dir, "big.jsonl")],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (code) => reject(new Error(`range server exited with ${code}`)));
  });
  base = `http://127.0.0.1:${port}/api/files/f1/range`;
}, 60_000);
afterAll(async () => {
  child?.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
});

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

/** One range read, its body streamed and dropped; the status and the bytes received. */
async function readAndDrop(): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${base}?start=0&end=${MAX_RANGE_BYTES}`);
  let bytes = 0;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); r && !r.done; r = await reader?.read())
    bytes += r.value.byteLength;
  return { status: res.status, bytes };
}

describe.runIf(process.platform === "linux")("200 concurrent 16 MiB range reads", () => {
  it("keep the server's peak memory far below the bytes asked for; the rest are told to retry", async () => {
    const before = await peakRssMb(child.pid ?? 0);
    const results = await Promise.all(Array.from({ length: READS }, readAndDrop));
    const peak = await peakRssMb(child.pid ?? 0);
    const served = results.filter((r) => r.status === 200);
    const busy = results.filter((r) => r.status === 429);
    expect(served.length + busy.length).toBe(READS);
    expect(served.length).toBeGreaterThanOrEqual(16);
    for (const r of served) expect(r.bytes).toBe(MAX_RANGE_BYTES);
    // 200 × 16 MiB = 3.2 GiB asked for; 16 reads in flight × a 1 MiB chunk each is what is held.
    console.log(
      `range memory: peak RSS ${before.toFixed(0)} → ${peak.toFixed(0)} MB; ${served.length} served, ${busy.length} told to retry`,
    );
    expect(peak - before).toBeLessThan(400);
  }, 120_000);
});
