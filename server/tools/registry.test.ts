import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calculate } from "./calculator";
import { createToolRegistry, loadToolModule, runTool } from "./registry";
import type { ToolContext, ToolDefinition } from "./types";

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    episodeId: "ep1",
    signal: new AbortController().signal,
    mockReplies: {},
    askHuman: async () => "human says hi",
    ...overrides,
  };
}

describe("calculator", () => {
  it.each([
    ["15*7", "105"],
    ["2^10", "1024"],
    ["sqrt(16) + 1", "5"],
    ["0.1 + 0.2", "0.3"],
    ["10 / 4", "2.5"],
  ])("%s = %s", (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ["import({}, {override: true})", /disabled/],
    ['evaluate("1+1")', /disabled/],
    ["1/0", /not finite/],
    ["foo(", /./],
    ["x".repeat(1001), /longer than/],
  ])("refuses %s", (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
  });
});

describe("runTool", () => {
  const registry = createToolRegistry();

  it("returns the calculator result", async () => {
    const outcome = await runTool(registry, "calculator", { expression: "6*7" }, context());
    expect(outcome).toEqual({ content: "42", isError: false });
  });

  it("turns a bad argument into an error result", async () => {
    const outcome = await runTool(registry, "calculator", { expression: 5 }, context());
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/expression/);
  });

  it("reports an unknown tool with the available names", async () => {
    const outcome = await runTool(registry, "nope", {}, context());
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/unknown tool "nope".*calculator/);
  });

  it("plays scripted mock replies in order, repeating the last", async () => {
    const ctx = context({ mockReplies: { mock: ["first", "second"] } });
    const replies: string[] = [];
    for (let i = 0; i < 3; i++) replies.push((await runTool(registry, "mock", {}, ctx)).content);
    expect(replies).toEqual(["first", "second", "second"]);
  });

  it("asks the human and returns the reply", async () => {
    const outcome = await runTool(registry, "ask_human", { question: "ok?" }, context());
    expect(outcome).toEqual({ content: "human says hi", isError: false });
  });

  it("times out a tool that never answers and reports it", async () => {
    const slow: ToolDefinition = {
      name: "slow",
      description: "never answers",
      parameters: { type: "object" },
      timeoutMs: 20,
      run: () => new Promise<string>(() => {}),
    };
    const outcome = await runTool(createToolRegistry([slow]), "slow", {}, context());
    expect(outcome).toEqual({ content: 'Error: tool "slow" timed out after 20 ms', isError: true });
  });

  it("turns a throwing tool into an error result", async () => {
    const broken: ToolDefinition = {
      name: "broken",
      description: "throws",
      parameters: { type: "object" },
      run: async () => {
        throw new Error("kaboom");
      },
    };
    const outcome = await runTool(createToolRegistry([broken]), "broken", {}, context());
    expect(outcome).toEqual({ content: "Error: kaboom", isError: true });
  });

  it("stops waiting when the episode is aborted", async () => {
    const controller = new AbortController();
    const pending = runTool(
      registry,
      "ask_human",
      { question: "?" },
      context({
        signal: controller.signal,
        askHuman: () => new Promise<string>(() => {}),
      }),
    );
    controller.abort();
    expect(await pending).toEqual({ content: "Error: tool call aborted", isError: true });
  });
});

describe("loadToolModule", () => {
  const dir = mkdtempSync(join(tmpdir(), "rl-tools-"));

  it("loads a researcher's module", async () => {
    const file = join(dir, "good.mjs");
    writeFileSync(
      file,
      `export const tools = [{ name: "echo", description: "echo", parameters: { type: "object" },
        run: async (args) => JSON.stringify(args) }];`,
    );
    const tools = await loadToolModule(file);
    expect(tools.map((t) => t.name)).toEqual(["echo"]);
    const outcome = await runTool(createToolRegistry(tools), "echo", { a: 1 }, context());
    expect(outcome.content).toBe('{"a":1}');
  });

  it("names the export and field that is wrong", async () => {
    const file = join(dir, "bad.mjs");
    writeFileSync(file, `export default { name: "x", description: "d", parameters: {} };`);
    await expect(loadToolModule(file)).rejects.toThrow(/bad\.mjs: export default, field run/);
  });

  it("names a module that cannot be loaded", async () => {
    await expect(loadToolModule(join(dir, "missing.mjs"))).rejects.toThrow(
      /missing\.mjs: cannot load/,
    );
  });
});
