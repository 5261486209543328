import type { z } from "zod";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { FamilyVerdict } from "../rescore/familyGuard";
import type { Rescorer } from "../rescore/rescoreTrajectory";
import type { McpChecks } from "./mcpChecks";
import type { McpFiles } from "./mcpFiles";

/** The session's files and their checks: loaded on the first tool call, not at start-up. */
export interface McpRuntime {
  readonly files: McpFiles;
  readonly checks: McpChecks;
  /** Where branches are stored (`episodes.jsonl`). */
  readonly dataDir: string;
  /** SGLang, when the server was started with one: rescore and branch need it. */
  readonly upstream?: McpUpstream;
}

/** The upstream the rescore and branch tools reach, with the running-episode cap. */
export interface McpUpstream {
  readonly urls: readonly string[];
  readonly client: Rescorer & { close(): Promise<void> };
  readonly guard: (t: Trajectory) => Promise<FamilyVerdict>;
  /** Takes `n` running slots (an error past the cap); the release gives them back. */
  hold(n: number): () => void;
}

/** What every tool reads through: the runtime, and where the app is. */
export interface ToolContext {
  runtime(): Promise<McpRuntime>;
  /** The app's base URL (links in every answer), without a trailing slash. */
  readonly appUrl: string;
}

/** A tool's implementation, with the runtime at hand. */
export type ToolRun = (
  args: Record<string, unknown>,
  rt: McpRuntime,
  ctx: ToolContext,
) => Promise<unknown>;

/** One MCP tool: its name, words, argument shape (zod) and a thin call into core and runner. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly input: Readonly<Record<string, z.ZodType>>;
  /** The implementation, imported on first use (start-up loads only the schemas). */
  load(): Promise<ToolRun>;
}

/** The app's page of a served file (`/files/srv-ID`, docs/keyboard-and-urls.md). */
export function fileUrl(ctx: ToolContext, fileId: string): string {
  return `${ctx.appUrl}/files/srv-${encodeURIComponent(fileId)}`;
}

/** The app's trajectory view of a row, on token `token` when given. */
export function rowUrl(ctx: ToolContext, fileId: string, row: number, token?: number): string {
  const at = token === undefined ? "" : `?token=${token}`;
  return `${fileUrl(ctx, fileId)}/${row}${at}`;
}
