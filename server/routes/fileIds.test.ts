import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEpisodeThroughApi } from "../../test-support/episodeApi";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";

// File ids of a run directory come from each file's path, so a step written while the server runs
// never shifts the others, and a fork reads the file its id names (it once branched a row of
// step_2.jsonl when asked for the file listed after it).

const root = mkdtempSync(join(tmpdir(), "rl-file-ids-"));
const run = join(root, "run");
const opened: Services[] = [];
let parent: Record<string, unknown> & { segments: { kind: string; start: number }[] };

async function server() {
  const services = await createServices(
    parseServerConfig({ data: join(root, "data"), files: [run], tokenizer: "qwen3" }),
  );
  opened.push(services);
  return buildApp(services);
}

type App = Awaited<ReturnType<typeof server>>;

/** One row whose id names its file, so a branch's parent_id says which file was read. */
function writeStep(name: string): void {
  writeFileSync(join(run, name), `${JSON.stringify({ ...parent, id: `row-of-${name}` })}\n`);
}

async function listed(app: App): Promise<Map<string, string>> {
  const body = (await (await app.request("/api/files")).json()) as {
    files: { id: string; name: string }[];
  };
  return new Map(body.files.map((f) => [f.name, f.id]));
}

beforeAll(async () => {
  mkdirSync(run);
  writeFileSync(join(run, "step_1.jsonl"), "");
  const app = await server();
  parent = JSON.parse(
    await runEpisodeThroughApi(app, { prompt: "What is 15*7?", policy: "calculator" }),
  );
  writeStep("step_1.jsonl");
  writeStep("step_3.jsonl");
}, 60_000);

afterAll(async () => {
  for (const services of opened) await services.close();
});

describe("run directory file ids", () => {
  it("stay put when a step file appears, and a fork reads the file its id names", async () => {
    const app = await server();
    const before = await listed(app);
    expect([...before.keys()]).toEqual(["step_1.jsonl", "step_3.jsonl", "episodes.jsonl"]);
    writeStep("step_2.jsonl");
    await new Promise((r) => setTimeout(r, 2_100)); // the registry lists the run again
    const after = await listed(app);
    expect([...after.keys()]).toEqual([
      "step_1.jsonl",
      "step_2.jsonl",
      "step_3.jsonl",
      "episodes.jsonl",
    ]);
    expect(after.get("step_1.jsonl")).toBe(before.get("step_1.jsonl"));
    expect(after.get("step_3.jsonl")).toBe(before.get("step_3.jsonl"));

    const index = (parent.segments.find((s) => s.kind === "model")?.start ?? 0) + 2;
    for (const name of ["step_2.jsonl", "step_3.jsonl"]) {
      const res = await app.request("/api/episodes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fork: { file: after.get(name), row: 0, index }, max_iterations: 0 }),
      });
      expect(res.status).toBe(201);
      const started = (await res.json()) as { id: string; source: unknown };
      await (await app.request(`/api/episodes/${started.id}/events`)).text();
      const branch = await (await app.request(`/api/episodes/${started.id}`)).json();
      expect(branch.parent_id).toBe(`row-of-${name}`);
      expect(started.source).toEqual({ file: after.get(name), path: name, line: 1 });
    }
  }, 60_000);

  it("are the same after a restart", async () => {
    const first = await listed(await server());
    const second = await listed(await server());
    expect([...second]).toEqual([...first]);
    for (const [name, id] of first) {
      if (name !== "episodes.jsonl") expect(id).toMatch(/^r1-[0-9a-f]{12}$/);
    }
  }, 30_000);
});
