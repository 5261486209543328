/** The findings the file table filters rows by (`?finding=`, docs/forest.md#in-the-browser). */
export const FINDINGS = ["zero-variance", "duplicates", "multiplicity"] as const;
export type Finding = (typeof FINDINGS)[number];

/** What the filters read of one group's forensics. */
export interface GroupFindingCounts {
  readonly rows: readonly number[];
  readonly zeroVarianceCause: string | null;
  readonly duplicates: number;
  readonly multiplicityTokens: number;
}

/** Whether a group has the finding. */
export function hasFinding(g: GroupFindingCounts, finding: Finding): boolean {
  if (finding === "zero-variance") return g.zeroVarianceCause !== null;
  if (finding === "duplicates") return g.duplicates > 0;
  return g.multiplicityTokens > 0;
}

/** Row indices (0-based, file order) of every member of a group with the finding. */
export function rowsWithFinding(
  groups: readonly GroupFindingCounts[],
  finding: Finding,
): Set<number> {
  const out = new Set<number>();
  for (const g of groups) if (hasFinding(g, finding)) for (const r of g.rows) out.add(r);
  return out;
}

/** File-wide totals for the group panel's summary. */
export function findingTotals(groups: readonly GroupFindingCounts[]) {
  const causes = new Map<string, number>();
  let duplicates = 0;
  let multiplied = 0;
  for (const g of groups) {
    if (g.zeroVarianceCause !== null) {
      causes.set(g.zeroVarianceCause, (causes.get(g.zeroVarianceCause) ?? 0) + 1);
    }
    duplicates += g.duplicates;
    multiplied += g.multiplicityTokens;
  }
  return { causes, duplicates, multiplied };
}
