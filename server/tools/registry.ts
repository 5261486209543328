import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { calculatorTool } from "./calculator";
import { humanTool } from "./human";
import { createMockTool } from "./mock";
import { type ToolContext, type ToolDefinition, userToolSchema } from "./types";

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** The outcome of one tool call: what the model is told, and whether it was an error. */
export interface ToolOutcome {
  readonly content: string;
  readonly isError: boolean;
}

export interface ToolRegistry {
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  get(name: string): ToolDefinition | undefined;
}

/** Built-in tools plus the researcher's own modules, keyed by name. */
export function createToolRegistry(extra: readonly ToolDefinition[] = []): ToolRegistry {
  const tools = new Map<string, ToolDefinition>();
  for (const tool of [calculatorTool, createMockTool(), humanTool, ...extra]) {
    tools.set(tool.name, tool);
  }
  return { tools, get: (name) => tools.get(name) };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Loads the tools a `--tools FILE` module exports (default export, `tools` array, or named). */
export async function loadToolModule(path: string): Promise<ToolDefinition[]> {
  const absolute = resolve(path);
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(absolute).href);
  } catch (error) {
    throw new Error(`--tools ${path}: cannot load module: ${describeError(error)}`);
  }
  const candidates: [string, unknown][] = [];
  for (const [exportName, value] of Object.entries(mod)) {
    if (!Array.isArray(value)) {
      candidates.push([exportName, value]);
      continue;
    }
    value.forEach((v, i) => {
      candidates.push([`${exportName}[${i}]`, v]);
    });
  }
  const tools: ToolDefinition[] = [];
  for (const [exportName, value] of candidates) {
    const parsed = userToolSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join(".") || "(export)";
      throw new Error(`--tools ${path}: export ${exportName}, field ${field}: ${issue?.message}`);
    }
    tools.push(parsed.data);
  }
  if (tools.length === 0) throw new Error(`--tools ${path}: the module exports no tools`);
  return tools;
}

/**
 * Runs one tool call with a time limit. A tool that throws, times out or is missing gives the model
 * an error result; it never throws itself.
 */
export async function runTool(
  registry: ToolRegistry,
  name: string,
  args: Readonly<Record<string, unknown>>,
  context: ToolContext,
): Promise<ToolOutcome> {
  const tool = registry.get(name);
  if (!tool) {
    const known = [...registry.tools.keys()].join(", ");
    return { content: `Error: unknown tool "${name}". Available tools: ${known}.`, isError: true };
  }
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Reject first so the race reports the timeout, then stop the tool.
        reject(new Error(`tool "${name}" timed out after ${timeoutMs} ms`));
        controller.abort();
      }, timeoutMs);
    });
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(new Error("tool call aborted")), {
        once: true,
      });
    });
    const content = await Promise.race([
      tool.run(args, { ...context, signal: controller.signal }),
      timeout,
      aborted,
    ]);
    if (typeof content !== "string") {
      return {
        content: `Error: tool "${name}" returned ${typeof content}, not text.`,
        isError: true,
      };
    }
    return { content, isError: false };
  } catch (error) {
    return { content: `Error: ${describeError(error)}`, isError: true };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onAbort);
  }
}
