import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RANGE_BYTES } from "../../src/core/files/filesWire";
import { RANGE_CHUNK_BYTES } from "../files/rangeReads";
import { filesRoutes } from "./files";

// Caps with words on the byte-range route: past `maxRangeReads` in flight a read is answered 429
// with a Retry-After and a sentence naming the cap; a range over 16 MiB is 413 naming the cap; a
// range streams chunk by chunk, so a client that does not read holds one chunk, not 16 MiB.

const SIZE = MAX_RANGE_BYTES + 3 * RANGE_CHUNK_BYTES;
let dir: string;
let app: Hono;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-range-caps-"));
  const bytes = new Uint8Array(SIZE);
  for (let i = 0; i < SIZE; i++) bytes[i] = i % 251;
  await writeFile(join(dir, "big.jsonl"), bytes);
  app = new Hono().route(
    "/api/files",
    filesRoutes({ files: [join(dir, "big.jsonl")], dataDir: join(dir, "data"), maxRangeReads: 3 }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const range = (start: number, end: number) =>
  app.request(`/api/files/f1/range?start=${start}&end=${end}`);

describe("byte-range caps", () => {
  it("serves a full 16 MiB range byte for byte, with its length", async () => {
    const res = await range(5, 5 + MAX_RANGE_BYTES);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(MAX_RANGE_BYTES));
    const got = new Uint8Array(await res.arrayBuffer());
    expect(got.length).toBe(MAX_RANGE_BYTES);
    for (const i of [0, RANGE_CHUNK_BYTES - 1, RANGE_CHUNK_BYTES, MAX_RANGE_BYTES - 1]) {
      expect(got[i]).toBe((5 + i) % 251);
    }
  });

  it("answers 413 naming the cap for one byte more", async () => {
    const res = await range(0, MAX_RANGE_BYTES + 1);
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: string };
    expect(body.error).toContain("at most 16 MiB (16777216 bytes)");
    expect(body.error).toContain(`asks for ${MAX_RANGE_BYTES + 1} bytes`);
  });

  it("answers 429 with Retry-After past the reads in flight, and serves again once they end", async () => {
    // Three reads whose bodies are not consumed hold the three slots.
    const held = await Promise.all([0, 1, 2].map(() => range(0, MAX_RANGE_BYTES)));
    expect(held.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await range(0, 10);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const body = (await refused.json()) as { error: string };
    expect(body.error).toMatch(
      /3 byte-range reads are already in flight .*--max-range-reads.*retry after 1 s/,
    );
    // A client that went away (its body cancelled) frees its slot; one read to the end frees another.
    await held[0]?.body?.cancel();
    expect((await held[1]?.arrayBuffer())?.byteLength).toBe(MAX_RANGE_BYTES);
    const again = await Promise.all([range(0, 10), range(10, 20)]);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    await Promise.all([...again, held[2]].map((r) => r?.body?.cancel()));
  });

  it("a refused or failed read never leaks its slot", async () => {
    for (let i = 0; i < 10; i++) {
      expect((await range(0, MAX_RANGE_BYTES + 1)).status).toBe(413);
      expect((await app.request("/api/files/f9/range?start=0&end=1")).status).toBe(404);
      const res = await range(SIZE + 10, SIZE + 20);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
    const three = await Promise.all([range(0, 1), range(1, 2), range(2, 3)]);
    expect(three.map((r) => r.status)).toEqual([200, 200, 200]);
    await Promise.all(three.map((r) => r.arrayBuffer()));
  });
});
