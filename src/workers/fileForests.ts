import type { RowSummary } from "../core/files/rowSummary";
import { forestCollector, forestOfTrajectories, type LocatedForest } from "../core/forest/forestOf";
import { groupKeyOf } from "../core/forest/groupKeys";
import type { FormatId } from "../core/formats/types";
import type { Trajectory } from "../core/trajectory/types";
import type { GroupForensics } from "./rolloutFileProtocol";

/** The forest of one group: the rows at `indices`, read in the file's worker. */
export async function forestOfRows(
  key: string,
  indices: readonly number[],
  read: (index: number) => Promise<Trajectory>,
): Promise<LocatedForest> {
  const members: Trajectory[] = [];
  for (const i of indices) members.push(await read(i));
  const kind = (members[0] && groupKeyOf(members[0])?.kind) ?? "group";
  return forestOfTrajectories({ key, kind }, members);
}

/** One group's forest reduced to what the group panel shows. */
export function forensicsOf(f: LocatedForest, rowOf: (line: number, row: number) => number) {
  return {
    key: f.key,
    kind: f.kind,
    line: f.line,
    size: f.size,
    rows: f.members.map((m) => rowOf(m.line, m.row)),
    zeroVarianceCause: f.zeroVarianceCause,
    duplicates: f.duplicateSets.reduce((sum, set) => sum + set.length - 1, 0),
    multiplicityTokens: f.multiplicity.tokens,
    multiplicityMax: f.multiplicity.max,
    causes: f.causes,
  } satisfies GroupForensics;
}

/**
 * Every group of an indexed file with its forensics: each line read once (`readLine`), in file
 * order, through the same collector the `groups` command uses.
 */
export async function forensicsOfFile(
  rows: readonly RowSummary[],
  format: FormatId,
  readLine: (line: number) => Promise<readonly Trajectory[]>,
): Promise<GroupForensics[]> {
  const collector = forestCollector({ isDetailed: false });
  const rowAt = new Map<string, number>();
  let last = -1;
  for (const r of rows) {
    rowAt.set(`${r.line}:${r.row}`, r.index);
    if (r.line === last || r.group === undefined) continue;
    last = r.line;
    collector.addLine(await readLine(r.line), format);
  }
  const rowOf = (line: number, row: number) => rowAt.get(`${line}:${row}`) ?? -1;
  return collector.finish().map((f) => forensicsOf(f, rowOf));
}
