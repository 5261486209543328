import { describe, expect, it } from "vitest";
import { exportLine } from "../core/files/exportRows";
import { createFileIndex, finishFileIndex, indexChunk } from "../core/files/fileIndexer";
import { splitScanRanges } from "../core/files/scanRanges";
import {
  createFileMismatchScan,
  finishCharts,
  type MismatchCharts,
  type RowMismatch,
  scanMismatchLine,
} from "../core/mismatch/fileMismatch";
import { withLane } from "../core/trajectory/lanes";
import { fakeScanWorkerPort } from "../test/fakeScanWorker";
import { FAKE_IM_END, FAKE_WORD_BASE } from "../test/fakeTokenizer";
import { modelSegment, promptSegment, trajectory } from "../test/trajectoryBuilders";
import type { FileRanges, RolloutFileSource } from "./rolloutFileProtocol";
import { createScanClient, type ScanClient } from "./scanClient";
import {
  MAX_SCAN_WORKERS,
  type PoolScanProgress,
  scanDriftWithPool,
  scanMismatchWithPool,
  scanRangeBytes,
  scanRangesWithPool,
  scanWorkerCount,
} from "./scanPool";

const ascii = (text: string) => [...new TextEncoder().encode(text)];
const drifted = (k: number) =>
  trajectory([promptSegment(ascii("Hi")), modelSegment([...ascii("Hello"), FAKE_IM_END], 1)], {
    id: `drifted-${k}`,
  });
const clean = (k: number) =>
  trajectory([promptSegment(ascii("Hi")), modelSegment([FAKE_WORD_BASE, FAKE_IM_END], 1)], {
    id: `clean-${k}`,
  });

/** A file of clean and drifted lines with a few bad and blank ones, and no final newline. */
function fileLines(count: number): string[] {
  return Array.from({ length: count }, (_, k) => {
    if (k % 17 === 5) return "{bad";
    if (k % 23 === 7) return "";
    return exportLine(k % 3 === 0 ? drifted(k) : clean(k), "rollout-lens/v1");
  });
}

/** The file as a blob source, cut into ranges from its index as the rollout-file worker does. */
function indexedFile(lines: string[], targetBytes: number) {
  const bytes = new TextEncoder().encode(lines.join("\n"));
  const index = createFileIndex("f.jsonl");
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  indexChunk(index, bytes, decode);
  finishFileIndex(index, decode);
  const source: RolloutFileSource = { kind: "blob", name: "f.jsonl", blob: new Blob([bytes]) };
  const file: FileRanges = {
    ranges: splitScanRanges(index.lines, index.rows, bytes.length, targetBytes),
    format: index.format,
    totalBytes: bytes.length,
  };
  return { source, file, rowCount: index.rows.length };
}

const clients = (n: number): ScanClient[] =>
  Array.from({ length: n }, () => createScanClient({ port: fakeScanWorkerPort() }));

describe("scanDriftWithPool", () => {
  it("gives the single-worker scan of the whole file, rows streaming in at their row index", async () => {
    const lines = fileLines(300);
    const { source, file, rowCount } = indexedFile(lines, 2_000);
    expect(file.ranges.length).toBeGreaterThan(10);
    const progress: PoolScanProgress[] = [];
    const pooled = await scanDriftWithPool(
      clients(3),
      { tokenizer: "fake", source, mode: "roundtrip", file },
      (p) => progress.push(p),
    );
    const single = await clients(1)[0]?.scan("fake", source, "roundtrip", () => {});
    expect(pooled).toEqual(single);
    expect(pooled.rows).toHaveLength(rowCount);
    expect(pooled.rows.filter((r) => (r?.regions ?? 0) > 0)).toHaveLength(
      lines.filter((l) => l.includes('"drifted-')).length,
    );
    const last = progress.at(-1);
    expect(last).toMatchObject({ bytes: file.totalBytes, totalBytes: file.totalBytes });
    expect(last?.rows).toBe(rowCount);
    expect(last?.partial).toEqual(pooled.rows);
  });

  it("reports rows before the scan ends, and runs the same on one worker", async () => {
    const lines = fileLines(200);
    const { source, file } = indexedFile(lines, 500);
    const seen: number[] = [];
    const scan = await scanDriftWithPool(
      clients(1),
      { tokenizer: "fake", source, mode: "roundtrip", file },
      (p) => seen.push(p.partial.filter((r) => r !== undefined).length),
    );
    expect(seen[0]).toBeLessThan(scan.rows.length);
    expect(scan.badLines).toBe(lines.filter((l) => l === "{bad").length);
    expect(scan.roundTrip).toMatchObject({ path: "exact" });
  });

  it("cancels every range in flight when the signal aborts", async () => {
    const ports = [fakeScanWorkerPort(), fakeScanWorkerPort()];
    const pool = ports.map((port) => createScanClient({ port }));
    const { source, file } = indexedFile(fileLines(2_000), 50_000);
    const controller = new AbortController();
    const pending = scanDriftWithPool(
      pool,
      { tokenizer: "fake", source, mode: "roundtrip", file },
      () => {},
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toThrow("cancelled");
    for (const port of ports) {
      const scanned = port.requests.filter((r) => r.type === "driftRange").map((r) => r.id);
      const cancelled = port.requests.filter((r) => r.type === "cancel").map((r) => r.id);
      expect(cancelled).toEqual(scanned);
      expect(scanned).toHaveLength(1);
    }
  });

  it("fails the whole scan, naming the cause, when a range fails", async () => {
    const { source, file } = indexedFile(fileLines(50), 500);
    await expect(
      scanDriftWithPool(
        clients(2),
        { tokenizer: "nope", source, mode: "roundtrip", file },
        () => {},
      ),
    ).rejects.toThrow("tokenizer nope");
  });

  it("refuses rows that do not match the file's index instead of shifting them", async () => {
    const { source, file } = indexedFile(fileLines(40), 500);
    const [first, second, ...rest] = file.ranges;
    if (!first || !second) throw new Error("the file has two ranges");
    const shifted = {
      ...file,
      ranges: [first, { ...second, firstRow: second.firstRow + 1 }, ...rest],
    };
    await expect(
      scanDriftWithPool(
        clients(1),
        { tokenizer: "fake", source, mode: "roundtrip", file: shifted },
        () => {},
      ),
    ).rejects.toThrow(/f\.jsonl: lines from 1 hold \d+ trajectories, the file's index says \d+/);
  });
});

/** Lines whose trajectories carry a trainer lane off the sampled logprobs by a few amounts. */
function mismatchLines(count: number): string[] {
  return Array.from({ length: count }, (_, k) => {
    if (k % 19 === 4) return "{bad";
    const n = 2 + (k % 40);
    const logprobs = Array.from({ length: n }, (_, i) => -0.05 * (1 + ((i * 7 + k) % 30)));
    const t = trajectory(
      [promptSegment([1, 2]), modelSegment(ascii("x".repeat(n)), 1, { logprobs })],
      {
        id: `m${k}`,
      },
    );
    const shift = k % 5 === 0 ? 0 : Math.sin(k) * (k % 7 === 0 ? 3 : 0.2);
    const trainer = [null, null, ...logprobs.map((v, i) => v + shift * Math.cos(i))];
    return exportLine(withLane(t, "trainer", trainer), "rollout-lens/v1");
  });
}

describe("scanMismatchWithPool", () => {
  it("gives the one-pass scan of the whole file: rows at their index, charts merged exactly", async () => {
    const lines = mismatchLines(400);
    const { source, file, rowCount } = indexedFile(lines, 3_000);
    expect(file.ranges.length).toBeGreaterThan(10);
    const progress: PoolScanProgress<RowMismatch>[] = [];
    const pooled = await scanMismatchWithPool(clients(3), { source, options: {}, file }, (p) =>
      progress.push(p),
    );
    const single = createFileMismatchScan();
    lines.forEach((line, i) => {
      scanMismatchLine(single, line, i + 1, 0, {});
    });
    expect(pooled.rows).toHaveLength(rowCount);
    expect(pooled.rows).toEqual(single.rows);
    expect(pooled.badLines).toBe(single.badLines);
    // Exactly one scan's charts, but for the order float sums were added in.
    const sums = (c: MismatchCharts) =>
      [...c.byProbability, ...c.byPosition].map(({ sumAbsDelta, ...rest }) => {
        sumsSeen.push(sumAbsDelta);
        return rest;
      });
    const sumsSeen: number[] = [];
    const want = finishCharts(single.charts);
    expect({ ...pooled.charts, buckets: sums(pooled.charts) }).toMatchObject({
      ...want,
      byProbability: expect.any(Array),
      byPosition: expect.any(Array),
      buckets: sums(want),
    });
    const half = sumsSeen.length / 2;
    sumsSeen.slice(0, half).forEach((x, i) => {
      expect(x).toBeCloseTo(sumsSeen[half + i] ?? Number.NaN, 9);
    });
    expect(pooled.charts.worst[0]?.delta).not.toBe(0);
    expect(progress.at(-1)?.partial).toEqual(pooled.rows);
  });

  it("cancels every range in flight when the signal aborts", async () => {
    const ports = [fakeScanWorkerPort(), fakeScanWorkerPort()];
    const pool = ports.map((port) => createScanClient({ port }));
    const { source, file } = indexedFile(mismatchLines(3_000), 50_000);
    const controller = new AbortController();
    const pending = scanMismatchWithPool(
      pool,
      { source, options: {}, file },
      () => {},
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toThrow("mismatch scan cancelled");
    for (const port of ports) {
      const scanned = port.requests.filter((r) => r.type === "mismatchRange").map((r) => r.id);
      const cancelled = port.requests.filter((r) => r.type === "cancel").map((r) => r.id);
      expect(cancelled).toEqual(scanned);
    }
  });
});

describe("scanRangesWithPool lookahead", () => {
  it("hands a worker its next range as its current one nears its end, two at most", async () => {
    const MB = 1024 * 1024;
    const ranges = [0, 1, 2].map((k) => ({
      start: 3 * MB * k,
      end: 3 * MB * (k + 1),
      firstLine: k + 1,
      firstRow: k,
    }));
    const started: number[] = [];
    const inFlight = new Map<number, { report: (bytes: number) => void; end: () => void }>();
    const scan = scanRangesWithPool<string, { lines: number; badLines: number }>(
      1,
      {
        file: { ranges, format: undefined, totalBytes: 9 * MB },
        name: "f.jsonl",
        scanRange: (_worker, range, onRows) =>
          new Promise((resolve) => {
            const k = range.firstRow;
            started.push(k);
            inFlight.set(k, {
              report: (bytes) => onRows({ bytes, from: 0, rows: [] }),
              end: () => {
                onRows({ bytes: 3 * MB, from: 0, rows: [`row ${k}`] });
                resolve({ lines: k + 1, badLines: 0 });
              },
            });
          }),
      },
      () => {},
      () => {},
    );
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    await settle();
    expect(started).toEqual([0]);
    inFlight.get(0)?.report(1 * MB);
    await settle();
    expect(started).toEqual([0]);
    inFlight.get(0)?.report(2 * MB + 1);
    await settle();
    expect(started).toEqual([0, 1]);
    // Range 1 nearly done too, but range 0 is still in flight: no third range yet.
    inFlight.get(1)?.report(2.5 * MB);
    await settle();
    expect(started).toEqual([0, 1]);
    inFlight.get(0)?.end();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    inFlight.get(1)?.end();
    inFlight.get(2)?.end();
    expect(await scan).toEqual(["row 0", "row 1", "row 2"]);
  });
});

describe("pool sizing", () => {
  it("uses every core up to the bound, at least one, and no more than the file keeps busy", () => {
    const big = 1 << 30;
    expect(scanWorkerCount(2, big)).toBe(2);
    expect(scanWorkerCount(64, big)).toBe(MAX_SCAN_WORKERS);
    expect(scanWorkerCount(undefined, big)).toBe(1);
    expect(scanWorkerCount(0, big)).toBe(1);
    expect(scanWorkerCount(8, 100_000)).toBe(1);
    expect(scanWorkerCount(8, 6 * 1024 * 1024)).toBe(2);
  });

  it("cuts ranges small enough to share, big enough to amortize a request", () => {
    expect(scanRangeBytes(1 << 30, 8)).toBe(4 * 1024 * 1024);
    expect(scanRangeBytes(1_000, 1)).toBe(256 * 1024);
    expect(scanRangeBytes(16 * 1024 * 1024, 2)).toBe(2 * 1024 * 1024);
  });
});
