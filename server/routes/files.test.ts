import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFileListSchema } from "../../src/core/files/filesWire";
import { filesRoutes } from "./files";

let dir: string;
let app: Hono;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-files-"));
  await writeFile(join(dir, "run1.jsonl"), '{"a":1}\n{"b":2}\n');
  await writeFile(join(dir, "secret.txt"), "do not serve");
  app = new Hono().route(
    "/api/files",
    filesRoutes({ files: [join(dir, "run1.jsonl")], dataDir: join(dir, "data") }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("/api/files", () => {
  it("lists the CLI files and the episode store, without paths", async () => {
    const res = await app.request("/api/files");
    const body = serverFileListSchema.parse(await res.json());
    expect(body.files).toEqual([
      { id: "f1", name: "run1.jsonl", origin: "cli", size: 16 },
      { id: "episodes", name: "episodes.jsonl", origin: "data" },
    ]);
    expect(JSON.stringify(body)).not.toContain(dir);
  });

  it("serves byte ranges of a listed file, clipped at its end", async () => {
    const res = await app.request("/api/files/f1/range?start=8&end=100");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"b":2}\n');
  });

  it("sees a file grow (live tail polls its size)", async () => {
    await appendFile(join(dir, "run1.jsonl"), '{"c":3}\n');
    const res = await app.request("/api/files/f1");
    expect(await res.json()).toMatchObject({ size: 24 });
  });

  const refused: { name: string; url: () => string; status: number; error: RegExp }[] = [
    {
      name: "unknown id",
      url: () => "/api/files/f9/range?start=0&end=4",
      status: 404,
      error: /f9/,
    },
    {
      name: "traversal in the id",
      url: () => `/api/files/..%2Fsecret.txt/range?start=0&end=4`,
      status: 404,
      error: /no file/,
    },
    {
      name: "absolute path as id",
      url: () => `/api/files/${encodeURIComponent(join(dir, "secret.txt"))}/range?start=0&end=4`,
      status: 404,
      error: /no file/,
    },
    {
      name: "negative start",
      url: () => "/api/files/f1/range?start=-1&end=4",
      status: 400,
      error: /start/,
    },
    {
      name: "end before start",
      url: () => "/api/files/f1/range?start=5&end=4",
      status: 400,
      error: /end/,
    },
    {
      name: "range too large",
      url: () => "/api/files/f1/range?start=0&end=999999999",
      status: 413,
      error: /at most 16 MiB \(16777216 bytes\); this one asks for 999999999 bytes/,
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}`, async () => {
      const res = await app.request(c.url());
      expect(res.status).toBe(c.status);
      const body: unknown = await res.json();
      expect(JSON.stringify(body)).toMatch(c.error);
      expect(JSON.stringify(body)).not.toContain("do not serve");
    });
  }

  it("answers 404 for the episode store before any episode was written", async () => {
    const res = await app.request("/api/files/episodes/range?start=0&end=10");
    expect(res.status).toBe(404);
  });

  it("traversal in the path never escapes the route", async () => {
    const res = await app.request("/api/files/../../secret.txt");
    expect(await res.text()).not.toContain("do not serve");
  });
});
