import type { LocatedForest } from "../../src/core/forest/forestOf";
import { groupJson } from "../commands/groups";
import type { LoadedFile } from "./mcpFiles";
import type { McpRuntime } from "./toolTypes";
import { fileUrl, type ToolContext, type ToolRun } from "./toolTypes";

// The group tool's implementation (its schema: toolSpecs.ts): the `groups` command's own code.

/** The findings `group_findings` and `find_rows` filter by. */
export type GroupFinding = "zero-variance" | "duplicates" | "multiplicity";

export function hasFinding(g: LocatedForest, what: GroupFinding): boolean {
  if (what === "zero-variance") return g.zeroVariance;
  if (what === "duplicates") return g.duplicateSets.length > 0;
  return g.multiplicity.tokens > 0;
}

/** Each group's member rows (0-based file rows, in the group's member order). */
export function membersByGroup(loaded: LoadedFile): Map<string, number[]> {
  const out = new Map<string, number[]>();
  loaded.groupKeys.forEach((key, row) => {
    if (key === undefined) return;
    const rows = out.get(key) ?? [];
    rows.push(row);
    out.set(key, rows);
  });
  return out;
}

/** Rows in a group with the finding (`duplicates`: the rows of its duplicate sets only). */
export async function rowsWithFinding(
  loaded: LoadedFile,
  rt: McpRuntime,
  what: GroupFinding,
): Promise<Set<number>> {
  const members = membersByGroup(loaded);
  const rows = new Set<number>();
  for (const g of (await rt.checks.groups(loaded)).groups) {
    if (!hasFinding(g, what)) continue;
    const own = members.get(g.key) ?? [];
    const picked = what === "duplicates" ? g.duplicateSets.flat() : own.map((_, m) => m);
    for (const m of picked) if (own[m] !== undefined) rows.add(own[m]);
  }
  return rows;
}

function groupUrl(ctx: ToolContext, fileId: string, key: string): string {
  return `${fileUrl(ctx, fileId)}/groups/${encodeURIComponent(key)}`;
}

export const groupFindings: ToolRun = async (args, rt, ctx) => {
  const loaded = await rt.files.load(String(args.file));
  const report = await rt.checks.groups(loaded);
  if (report.readError !== undefined) throw new Error(`${loaded.file.name}: ${report.readError}`);
  const only = args.only as GroupFinding | undefined;
  const picked = report.groups.filter((g) => only === undefined || hasFinding(g, only));
  const offset = Number(args.offset ?? 0);
  const page = picked.slice(offset, offset + Number(args.limit ?? 20));
  const members = membersByGroup(loaded);
  const count = (what: GroupFinding) => report.groups.filter((g) => hasFinding(g, what)).length;
  return {
    file: loaded.file.id,
    groups_total: report.groups.length,
    zero_variance: count("zero-variance"),
    with_duplicates: count("duplicates"),
    with_multiplicity: count("multiplicity"),
    total: picked.length,
    groups: page.map((g) => ({
      ...groupJson(g),
      kind: g.kind,
      causes: g.causes,
      rows: members.get(g.key) ?? [],
      url: groupUrl(ctx, loaded.file.id, g.key),
    })),
    next_offset: offset + page.length < picked.length ? offset + page.length : null,
    bad_lines: report.errors.length,
    ...(report.unit === undefined ? {} : { unit: report.unit }),
  };
};
