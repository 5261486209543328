import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEpisodeThroughApi } from "../../test-support/episodeApi";
import { buildApp } from "../app";
import { validateCommand } from "../commands/validate";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";

// Seeded mutation fuzzing of every POST route's body (docs/security.md, "Request bodies"): each
// answer is a 2xx or a 4xx naming its reason, never a 500, and every episode a body started is
// stored as a line `validate` accepts. Reproduce a failure with the seed and path it prints.

const SEED = 3232;
const RUNS = 160;

const root = mkdtempSync(join(tmpdir(), "rl-body-fuzz-"));
const data = join(root, "data");
let services: Services;
let app: ReturnType<typeof buildApp>;
let parentId = "";
let forkIndex = 0;
const answers = new Map<number, number>();

beforeAll(async () => {
  const rows = join(root, "rows.jsonl");
  writeFileSync(rows, "");
  services = await createServices(
    parseServerConfig({ data, files: [rows], maxEpisodes: 64, tokenizer: "qwen3" }),
  );
  app = buildApp(services);
  const parent = JSON.parse(
    await runEpisodeThroughApi(app, { prompt: "What is 15*7?", policy: "calculator" }),
  );
  parentId = parent.id;
  forkIndex = (parent.segments.find((s: { kind: string }) => s.kind === "model")?.start ?? 0) + 2;
  writeFileSync(rows, `${JSON.stringify(parent)}\n`);
}, 60_000);

afterAll(async () => {
  await services?.close();
});

/** A valid body of each route; `:id` is replaced by an episode id. */
function validBodies(): { path: string; body: Record<string, unknown> }[] {
  return [
    {
      path: "/api/episodes",
      body: {
        prompt: "What is 2+2?",
        policy: "calculator",
        max_iterations: 2,
        sampling_params: { temperature: 0.5, max_new_tokens: 64 },
        stream: true,
        top_logprobs_num: 2,
      },
    },
    {
      path: "/api/episodes",
      body: {
        fork: { episode: parentId, index: forkIndex },
        n: 2,
        sampling_params: { sampling_seed: 7, max_new_tokens: 64 },
      },
    },
    { path: "/api/episodes", body: { fork: { file: "f1", row: 0, index: forkIndex } } },
    { path: "/api/episodes/:id/abort", body: {} },
    { path: "/api/episodes/:id/human-reply", body: { reply: "yes" } },
    { path: "/api/rescore", body: { episodeId: parentId } },
    { path: "/api/rescore", body: { ids: [1, 2, 3], temperature: 1 } },
  ];
}

const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -1, 2 ** 53 + 1, 0.5, -0),
  fc.string({ maxLength: 20 }),
  fc.constantFrom("", "../../etc/passwd", "f1", "episodes", "\u0000", "ep_0000000000000000"),
);
const value = fc.oneof(
  leaf,
  fc.jsonValue({ maxDepth: 3 }),
  // Built only when the body is sent, so a failing case prints short.
  fc.integer({ min: 60, max: 5000 }).map((depth) => ({ nestedDepth: depth })),
);

/** `{"a":[{"a":[ ... 1]}]}` as JSON text, `depth` levels deep (an object, as sampling_params is). */
function nested(depth: number): string {
  const open = Array.from({ length: depth }, (_, i) => (i % 2 === 1 ? "[" : '{"a":'));
  return `${open.join("")}1${open
    .reverse()
    .map((o) => (o === "[" ? "]" : "}"))
    .join("")}`;
}

type Mutation =
  | { kind: "set"; path: number[]; key: string; value: unknown }
  | { kind: "drop"; path: number[] }
  | { kind: "raw"; text: string }
  | { kind: "deepParam"; depth: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("set" as const),
    path: fc.array(fc.nat(), { maxLength: 2 }),
    key: fc.constantFrom("prompt", "sampling_params", "fork", "index", "n", "x", "reply", "ids"),
    value,
  }),
  fc.record({ kind: fc.constant("drop" as const), path: fc.array(fc.nat(), { maxLength: 2 }) }),
  // A sampling parameter nested deep: the body that lost its episode when stored.
  fc.record({ kind: fc.constant("deepParam" as const), depth: fc.integer({ min: 60, max: 5000 }) }),
  fc.record({
    kind: fc.constant("raw" as const),
    text: fc.constantFrom("", "{", "[]", "null", '{"prompt":"x"', "\uFEFF{}", "1e999"),
  }),
);

/** The object reached by following `path` (indices into each object's keys), or the body itself. */
function objectAt(body: Record<string, unknown>, path: readonly number[]): Record<string, unknown> {
  let at = body;
  for (const step of path) {
    const keys = Object.keys(at);
    const child = keys.length > 0 ? at[keys[step % keys.length] ?? ""] : undefined;
    if (typeof child !== "object" || child === null || Array.isArray(child)) break;
    at = child as Record<string, unknown>;
  }
  return at;
}

function mutate(body: Record<string, unknown>, mutations: readonly Mutation[]): string {
  const copy = structuredClone(body);
  for (const m of mutations) {
    if (m.kind === "raw") return m.text;
    if (m.kind === "deepParam") {
      copy.sampling_params = { x: deepMarker({ nestedDepth: m.depth }) };
      continue;
    }
    const at = objectAt(copy, m.path);
    if (m.kind === "set") at[m.key] = deepMarker(m.value) ?? m.value;
    else delete at[Object.keys(at)[0] ?? ""];
  }
  // A deep value goes in as text: building it as an object would overflow the stack here.
  return JSON.stringify(copy).replace(/"__deep_(\d+)__"/g, (_, n) => nested(Number(n)));
}

function deepMarker(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || !("nestedDepth" in value)) return undefined;
  return `__deep_${String(value.nestedDepth)}__`;
}

async function send(path: string, text: string): Promise<Response> {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: text,
  });
}

/** Aborts an episode a body started and waits for it to be stored. */
async function settle(id: string): Promise<void> {
  await send(`/api/episodes/${id}/abort`, "{}");
  await (await app.request(`/api/episodes/${id}/events`)).text();
}

describe("mutated bodies to every POST route", () => {
  it("answer 2xx or 4xx with a reason, never 500, and lose no episode", async () => {
    const started: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(mutation, { maxLength: 3 }), async (pick, mutations) => {
        const bodies = validBodies();
        const chosen = bodies[pick % bodies.length];
        if (!chosen) return;
        const path = chosen.path.replace(":id", started.at(-1) ?? parentId);
        const res = await send(path, mutate(chosen.body, mutations));
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        expect(res.status, `${path}`).toBeLessThan(500);
        const json = (await res.json()) as { id?: string; ids?: string[]; error?: string };
        if (res.status >= 400) expect(json.error, `${path} ${res.status}`).toMatch(/\S/);
        for (const id of json.ids ?? (json.id ? [json.id] : [])) {
          started.push(id);
          await settle(id);
          const stored = await app.request(`/api/episodes/${id}`);
          expect(stored.status, `episode ${id}`).toBe(200);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Every stored line, from every body that started an episode, passes `validate`.
    let out = "";
    const code = await validateCommand([join(data, "episodes.jsonl")], {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
    });
    expect(out).not.toMatch(/invalid|error/i);
    expect(code).toBe(0);
    expect(readdirSync(join(data, "running"))).toEqual([]);
    expect(started.length).toBeGreaterThan(0);
    const refused = [...answers].filter(([s]) => s >= 400).reduce((n, [, k]) => n + k, 0);
    expect(refused).toBeGreaterThan(0);
    console.info(
      `API body fuzz: ${RUNS} cases, seed ${SEED}, answers ${JSON.stringify([...answers])}`,
    );
  }, 120_000);

  it("refuses sampling_params nested 5,000 deep (a 10 KB body) with a 400 before anything starts", async () => {
    const before = services.manager.runningCount;
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const res = await send("/api/episodes", `{"prompt":"hi","sampling_params":{"x":${deep}}}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/nests deeper than 64/);
    expect(services.manager.runningCount).toBe(before);
  });
});
