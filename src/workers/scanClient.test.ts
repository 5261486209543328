import { describe, expect, it } from "vitest";
import { exportLine } from "../core/files/exportRows";
import { fakeScanWorkerPort, fakeTokenizer, loadFakeTokenizer } from "../test/fakeScanWorker";
import { FAKE_IM_END, FAKE_WORD_BASE } from "../test/fakeTokenizer";
import { modelSegment, promptSegment, trajectory } from "../test/trajectoryBuilders";
import { createScanClient } from "./scanClient";
import type { ScanProgress } from "./scanProtocol";

const fake = fakeTokenizer;
const loadFake = loadFakeTokenizer;
const fakeWorkerPort = fakeScanWorkerPort;

const ascii = (text: string) => [...new TextEncoder().encode(text)];
const HELLO = FAKE_WORD_BASE; // "Hello" as one word of the fake vocabulary
// "Hello" spelled byte by byte inside model output: the round trip merges it into one token.
const drifted = trajectory(
  [promptSegment(ascii("Hi")), modelSegment([...ascii("Hello"), FAKE_IM_END], 1)],
  { id: "drifted" },
);
const clean = trajectory([promptSegment(ascii("Hi")), modelSegment([HELLO, FAKE_IM_END], 1)], {
  id: "clean",
});
const file = (lines: string[]) =>
  ({
    kind: "blob",
    name: "f.jsonl",
    blob: new Blob([lines.join("\n")]),
  }) as const;

describe.each([
  ["worker port", () => createScanClient({ port: fakeWorkerPort() })],
  ["main-thread fallback", () => createScanClient({ port: undefined, load: loadFake })],
])("drift client (%s)", (_, makeClient) => {
  it("checks one trajectory and returns pieces of every recorded token", async () => {
    const client = makeClient();
    const { results, pieces } = await client.check("fake", drifted, ["roundtrip", "template"]);
    expect(results.map((r) => r.mode)).toEqual(["roundtrip"]);
    const region = results[0]?.regions[0];
    expect(region?.t).toEqual([2, 7]);
    expect(region?.retok.map((t) => t.id)).toEqual([HELLO]);
    expect(region?.classes).toEqual(["merge"]);
    expect(region?.trainableAffected).toBe(5);
    expect(pieces).toEqual(["H", "i", "H", "e", "l", "l", "o", "<|im_end|>"]);
  });

  it("scans a file with progress, keeping row indices across a bad line", async () => {
    const client = makeClient();
    const progress: ScanProgress[] = [];
    const scan = await client.scan(
      "fake",
      file([
        exportLine(clean, "rollout-lens/v1"),
        "{oops",
        exportLine(drifted, "rollout-lens/v1"),
        "",
      ]),
      "roundtrip",
      (p) => progress.push(p),
    );
    expect(scan.rows.map((r) => r?.regions)).toEqual([0, 1]);
    expect(scan.rows[1]?.trainableAffected).toBe(5);
    expect(scan.badLines).toBe(1);
    expect(progress.at(-1)).toMatchObject({ rows: 2 });
    expect(progress.at(-1)?.bytes).toBe(progress.at(-1)?.totalBytes);
  });

  it("scans a file of several read chunks, lines cut across chunk ends, every row in order", async () => {
    const client = makeClient();
    const lines = Array.from({ length: 9_000 }, (_, k) =>
      exportLine(k % 7 === 3 ? drifted : clean, "rollout-lens/v1"),
    );
    const source = file(lines);
    expect(source.blob.size).toBeGreaterThan(2.5 * 1024 * 1024);
    const scan = await client.scan("fake", source, "roundtrip", () => {});
    expect(scan.lines).toBe(9_000);
    expect(scan.badLines).toBe(0);
    expect(scan.rows.map((r) => r?.regions)).toEqual(lines.map((_, k) => (k % 7 === 3 ? 1 : 0)));
  });

  it("loads a tokenizer ahead of a scan, once, and says why when it cannot", async () => {
    let loads = 0;
    const counting = async (name: string) => {
      loads++;
      return loadFake(name);
    };
    const client =
      _ === "worker port"
        ? createScanClient({ port: fakeWorkerPort() })
        : createScanClient({ port: undefined, load: counting });
    await expect(client.load("fake")).resolves.toBeUndefined();
    const scan = await client.scan(
      "fake",
      file([exportLine(drifted, "rollout-lens/v1")]),
      "roundtrip",
      () => {},
    );
    expect(scan.rows.map((r) => r?.regions)).toEqual([1]);
    if (_ !== "worker port") expect(loads).toBe(1);
    await expect(client.load("nope")).rejects.toThrow("tokenizer nope");
  });

  it("returns errors as rejections naming the tokenizer", async () => {
    const client = makeClient();
    await expect(client.check("nope", clean, ["roundtrip"])).rejects.toThrow("tokenizer nope");
    await expect(
      client.scan("nope", file([exportLine(clean, "rollout-lens/v1")]), "roundtrip", () => {}),
    ).rejects.toThrow("tokenizer nope");
  });
});

describe("drift client cancel", () => {
  it("sends a cancel with the scan's request id when the signal aborts", async () => {
    const port = fakeWorkerPort();
    const client = createScanClient({ port });
    const controller = new AbortController();
    const lines = Array.from({ length: 5_000 }, () => exportLine(clean, "rollout-lens/v1"));
    const pending = client.scan("fake", file(lines), "roundtrip", () => {}, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow("cancelled");
    const scanRequest = port.requests.find((r) => r.type === "scan");
    expect(port.requests.at(-1)).toEqual({ type: "cancel", id: scanRequest?.id });
  });
});

describe("drift client round-trip path", () => {
  it("says a round-trip scan ran the exact path, and why, when the tokenizer has no proof", async () => {
    const client = createScanClient({ port: fakeWorkerPort() });
    const source = file([exportLine(drifted, "rollout-lens/v1")]);
    const scan = await client.scan("fake", source, "roundtrip", () => {});
    expect(scan.roundTrip).toEqual({
      path: "exact",
      reason: `${fake.id}: no tokenizer.json pipeline to check`,
    });
    expect((await client.scan("fake", source, "text", () => {})).roundTrip).toBeUndefined();
  });
});
