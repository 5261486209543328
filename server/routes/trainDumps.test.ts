import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFileListSchema } from "../../src/core/files/filesWire";
import { filesRoutes } from "./files";

// A slime/miles rollout dump's train dumps (train_data/ beside its rollout_data/) are listed with
// it and served under their own ids, so the browser's file worker joins their trainer lanes as the
// CLI does; no id reaches any other path.

const details = fileURLToPath(
  new URL("../../src/test/fixtures/torch/dump-details", import.meta.url),
);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-train-dumps-"));
  await cp(details, join(dir, "run"), { recursive: true });
  await cp(details, join(dir, "plain"), { recursive: true });
  await writeFile(join(dir, "secret.pt"), "PK\x03\x04 secret");
  // A link out of the folder, named like a train dump of rollout 3: never listed nor served.
  await symlink(join(dir, "secret.pt"), join(dir, "run", "train_data", "3_7.pt"));
  await writeFile(join(dir, "run", "train_data", "4_0.pt"), "another rollout's");
  await mkdir(join(dir, "data"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function app() {
  const files = [join(dir, "run"), join(dir, "plain", "rollout_data", "3.pt")];
  return new Hono().route("/api/files", filesRoutes({ files, dataDir: join(dir, "data") }));
}

async function listing(server: Hono) {
  const res = await server.request("/api/files");
  return serverFileListSchema.parse(await res.json()).files;
}

describe("a rollout dump's train dumps on /api/files", () => {
  it("are listed with the run's rollout dump and with a plain one, by name below the run", async () => {
    const files = await listing(app());
    const run = files.find((f) => f.name === "rollout_data/3.pt");
    expect(run?.trainDumps).toEqual([{ id: `${run?.id}~3_0.pt`, name: "train_data/3_0.pt" }]);
    const plain = files.find((f) => f.id === "f1");
    expect(plain?.trainDumps).toEqual([{ id: "f1~3_0.pt", name: "train_data/3_0.pt" }]);
    expect(files.find((f) => f.id === "episodes")).not.toHaveProperty("trainDumps");
  });

  it("are served by byte range under their ids, with their size", async () => {
    const server = app();
    const info = await server.request("/api/files/f1~3_0.pt");
    expect(info.status).toBe(200);
    const { size } = (await info.json()) as { size: number };
    expect(size).toBeGreaterThan(1000);
    const head = await server.request("/api/files/f1~3_0.pt/range?start=0&end=4");
    expect(new Uint8Array(await head.arrayBuffer())).toEqual(new Uint8Array([0x50, 0x4b, 3, 4]));
  });

  const refused = [
    ["a name the rule does not accept", "f1~..%2F..%2Fsecret.pt"],
    ["another rollout's train dump", "f1~4_0.pt"],
    ["a link leading out of the folder", "RUN~3_7.pt"],
    ["the episode store's companion", "episodes~3_0.pt"],
    ["an unknown rollout", "f9~3_0.pt"],
  ] as const;
  for (const [what, id] of refused) {
    it(`refuses ${what}`, async () => {
      const server = app();
      const runId = (await listing(server)).find((f) => f.name === "rollout_data/3.pt")?.id;
      const url = `/api/files/${id.replace("RUN", runId ?? "")}/range?start=0&end=100`;
      const res = await server.request(url);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/^\{"error":"no file with id/);
    });
  }
});
