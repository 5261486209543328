import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFileListSchema } from "../../src/core/files/filesWire";
import { dumpAndColumns } from "../../src/test/dashboardColumnsFixture";
import { fixturePath } from "../../src/test/fixtureFiles";
import { recordSourceOf } from "../../src/workers/recordFiles";
import { filesRoutes } from "../routes/files";
import { readLines, readNumberedLine } from "./readLines";

// A miles --dump-details folder with its dashboard column mirror
// (dashboard_columns/rollout_3.parquet, as save_dashboard_columns writes it): opened alone, the
// column file's rows get the reward, status and group of the rollout dump beside it, in the CLI
// and in the browser's worker (the server lists the dump with the column file).

let dir: string;
let columns: string;
let expected: { reward: unknown; group: string }[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-columns-"));
  await cp(fixturePath("torch/dump-details"), join(dir, "D"), { recursive: true });
  const { buffer, samples } = await dumpAndColumns();
  await mkdir(join(dir, "D", "dashboard_columns"));
  columns = join(dir, "D", "dashboard_columns", "rollout_3.parquet");
  await writeFile(columns, new Uint8Array(buffer));
  expected = samples.map((s) => ({ reward: s.reward, group: String(s.group_index) }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a miles dashboard column file opened alone", () => {
  it("reads with the rollout dump's reward and group (CLI readLines)", async () => {
    const got: { reward: unknown; group: string | undefined }[] = [];
    for await (const line of readLines(columns)) {
      const read = readNumberedLine(line, undefined, columns);
      if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
      const t = read.trajectories[0];
      got.push({ reward: t?.reward, group: t?.group });
    }
    expect(got).toEqual(expected);
  });

  it("is listed with its rollout dump, which the worker joins by byte range", async () => {
    const app = new Hono().route(
      "/api/files",
      filesRoutes({ files: [columns], dataDir: join(dir, "data") }),
    );
    const res = await app.request("/api/files");
    const [file] = serverFileListSchema.parse(await res.json()).files;
    expect(file?.rolloutDump).toEqual({ id: "f1~rollout-dump", name: "rollout_data/3.pt" });
    const http = (id: string) => ({
      size: async () =>
        ((await (await app.request(`/api/files/${id}`)).json()) as { size: number }).size,
      read: async (start: number, end: number) =>
        new Uint8Array(
          await (
            await app.request(`/api/files/${id}/range?start=${start}&end=${end}`)
          ).arrayBuffer(),
        ),
    });
    expect(await http("f1~rollout-dump").size()).toBeGreaterThan(1000);
    // The worker's code, with the dump as a File (the server's endpoints are what it fetches).
    const dump = await (
      await app.request("/api/files/f1~rollout-dump/range?start=0&end=16000000")
    ).arrayBuffer();
    const bytes = http("f1");
    const records = await recordSourceOf(
      bytes,
      "rollout_3.parquet",
      await bytes.size(),
      undefined,
      {
        rolloutDump: { kind: "blob", name: "rollout_data/3.pt", blob: new Blob([dump]) },
      },
    );
    const [first] = (await records?.read(0, 1)) ?? [];
    expect(first).toMatchObject({
      reward: expected[0]?.reward,
      group_index: Number(expected[0]?.group),
    });
  });
});
