import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filesRoutes } from "./files";

// A served file swapped for a link after the server started must not lead outside what was
// served: the path resolved at start is opened, and a link is followed only inside the run
// directory (a plain file: never).

let dir: string;
const SECRET = '{"secret":"outside the run"}\n';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-links-"));
  await writeFile(join(dir, "secret.jsonl"), SECRET);
  await mkdir(join(dir, "run"));
  for (const step of [1, 2, 3])
    await writeFile(join(dir, "run", `step_${step}.jsonl`), '{"a":1}\n');
  await writeFile(join(dir, "plain.jsonl"), '{"p":1}\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type App = Hono;

async function ids(app: App): Promise<Map<string, string>> {
  const body = (await (await app.request("/api/files")).json()) as {
    files: { id: string; name: string }[];
  };
  return new Map(body.files.map((f) => [f.name, f.id]));
}

/** Replaces `path` by a link to `target`, as a hostile writer would (rename over it). */
async function swapForLink(path: string, target: string): Promise<void> {
  const link = `${path}.link`;
  await symlink(target, link);
  await rename(link, path);
}

describe("a served file swapped for a link after start", () => {
  it("is not served when the link leads outside the run directory", async () => {
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [join(dir, "run"), join(dir, "plain.jsonl")], dataDir: join(dir, "d") }),
    );
    const listed = await ids(app);
    await swapForLink(join(dir, "run", "step_1.jsonl"), join(dir, "secret.jsonl"));
    await swapForLink(join(dir, "plain.jsonl"), join(dir, "secret.jsonl"));
    for (const name of ["step_1.jsonl", "plain.jsonl"]) {
      const res = await app.request(`/api/files/${listed.get(name)}/range?start=0&end=100`);
      expect(res.status, name).toBe(404);
      const body = await res.text();
      expect(body).not.toContain("secret");
      expect(body).toMatch(/link that leads outside/);
    }
  });

  it("is served when the link stays inside the run directory", async () => {
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [join(dir, "run")], dataDir: join(dir, "d2") }),
    );
    const listed = await ids(app);
    await writeFile(join(dir, "run", "moved.jsonl"), '{"moved":1}\n');
    await swapForLink(join(dir, "run", "step_2.jsonl"), join(dir, "run", "moved.jsonl"));
    const res = await app.request(`/api/files/${listed.get("step_2.jsonl")}/range?start=0&end=100`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"moved":1}\n');
  });
});
