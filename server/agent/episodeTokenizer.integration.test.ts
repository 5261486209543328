import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { familyById } from "../../src/core/families/families";
import { rolloutLensLineSchema } from "../../src/core/formats/rolloutLensSchema";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices, type Services } from "../services";
import type { ModelClient } from "./modelClient";

/**
 * One server (default tokenizer qwen3, the built-in simulator) runs episodes of other families
 * when a request names a catalog tokenizer: the runner loads it, the simulator serves the ids'
 * family, and the family's parser reads the calls.
 */

const TOOL_FAMILIES = ["llama3_1", "deepseek_v3", "gptoss", "qwen3"] as const;
/** The first id each family's prompt starts with. */
const FIRST_ID: Record<(typeof TOOL_FAMILIES)[number], number> = {
  llama3_1: 128000,
  deepseek_v3: 0,
  gptoss: 200006,
  qwen3: 151644,
};

describe("POST /api/episodes with a tokenizer", () => {
  let services: Services;
  const inputs: number[][] = [];
  beforeAll(async () => {
    const data = mkdtempSync(join(tmpdir(), "rl-episode-tokenizer-"));
    services = await createServices(parseServerConfig({ data, tokenizer: "qwen3" }), {
      wrapClient: (client: ModelClient): ModelClient => ({
        ...client,
        async generate(request) {
          inputs.push(request.inputIds.slice());
          return client.generate(request);
        },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await services?.close();
  });

  const post = (body: unknown) =>
    buildApp(services).request("/api/episodes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("refuses a name the catalog lacks, naming the field and the choices", async () => {
    const res = await post({ prompt: "hi", tokenizer: "gpt2" });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(/^tokenizer: unknown tokenizer "gpt2"; choose one of qwen3, llama3/);
  });

  it("refuses a tokenizer on a fork (a branch keeps its parent's ids)", async () => {
    const res = await post({ fork: { episode: "x", index: 1 }, tokenizer: "llama3" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/tokenizer/);
  });

  it.each(TOOL_FAMILIES)(
    "runs a two-call calculator episode with tokenizer %s",
    async (name) => {
      inputs.length = 0;
      const started = await post({
        prompt: "What is 23*19 and then 437+1?",
        policy: "calculator",
        max_iterations: 4,
        tokenizer: name,
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      const app = buildApp(services);
      await (await app.request(`/api/episodes/${id}/events`)).text();
      const line = rolloutLensLineSchema.parse(
        await (await app.request(`/api/episodes/${id}`)).json(),
      );
      expect(line.status, JSON.stringify(line.metadata)).toBe("completed");
      expect(line.tokenizer).toBe(name);
      expect(line.metadata).toMatchObject({ family: name });
      const calls = line.segments.flatMap((s) => s.tool_calls ?? []);
      expect(calls.map((c) => [c.name, c.arguments, c.result])).toEqual([
        ["calculator", { expression: "23*19" }, "437"],
        ["calculator", { expression: "437+1" }, "438"],
      ]);
      // The ids are the named family's: Llama 3.1's calls open with <|python_tag|>.
      const family = familyById(name);
      const first = inputs[0]?.[0];
      expect(first).toBe(FIRST_ID[name]);
      if (name === "llama3_1") {
        expect(family?.addedTokenNames?.[128010]).toBe("<|python_tag|>");
        expect(line.token_ids).toContain(128010);
      }
      // A branch at the second model turn goes on in the parent's tokenizer and family.
      const second = line.segments.filter((s) => s.kind === "model")[1];
      if (!second) throw new Error("no second model turn");
      const forked = await post({ fork: { episode: id, index: second.start } });
      expect(forked.status, await forked.clone().text()).toBe(201);
      const { id: branchId } = (await forked.json()) as { id: string };
      await (await app.request(`/api/episodes/${branchId}/events`)).text();
      const branch = rolloutLensLineSchema.parse(
        await (await app.request(`/api/episodes/${branchId}`)).json(),
      );
      expect(branch.status, JSON.stringify(branch.metadata)).toBe("completed");
      expect(branch.tokenizer).toBe(name);
      expect(branch.token_ids.slice(0, second.start)).toEqual(
        line.token_ids.slice(0, second.start),
      );
    },
    120_000,
  );
});
