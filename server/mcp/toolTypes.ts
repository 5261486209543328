import type { z } from "zod";
import type { McpChecks } from "./mcpChecks";
import type { McpFiles } from "./mcpFiles";

/** What every tool reads through: the session's files, their checks, where the app is. */
export interface ToolContext {
  readonly files: McpFiles;
  readonly checks: McpChecks;
  /** The app's base URL (links in every answer), without a trailing slash. */
  readonly appUrl: string;
}

/** One MCP tool: its name, words, argument shape (zod) and a thin call into core and runner. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly input: Readonly<Record<string, z.ZodType>>;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
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
