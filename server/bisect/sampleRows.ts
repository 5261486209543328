import type { SampleCandidate } from "../../src/core/bisect/sample";
import type { Trajectory } from "../../src/core/trajectory/types";
import { readRecords } from "../files/readLines";
import { bisectRefusal, bisectTargetOf } from "./bisectTarget";

/** Why a trajectory cannot be bisected, or undefined when it can. */
export function ineligibility(t: Trajectory): string | undefined {
  const { mask, sampled } = bisectTargetOf(t);
  const refused = bisectRefusal(t, mask);
  if (refused !== undefined) return refused;
  if (!mask.some((m, k) => m === 1 && typeof sampled[k] === "number"))
    return "no sampled logprob on a trained token";
  return undefined;
}

/** A file's rows as sample candidates, and its bad lines (which are not rows). */
export interface FileCandidates {
  readonly candidates: SampleCandidate[];
  readonly badLines: { readonly line: number; readonly error: string }[];
  /** "record" when the file is a table or document: a bad line's `line` is its record's number. */
  readonly unit: "line" | "record";
}

/** Every row of the file (the file table's numbering), eligible or with the reason it is not. */
export async function sampleCandidates(path: string, name: string): Promise<FileCandidates> {
  const candidates: SampleCandidate[] = [];
  const badLines: { line: number; error: string }[] = [];
  let unit: FileCandidates["unit"] = "line";
  for await (const { lineNo, result, isRecord } of readRecords(path, { fixFormat: false, name })) {
    if (isRecord) unit = "record";
    if (result.kind === "error") {
      const field = result.error.field ? ` field ${result.error.field}:` : "";
      badLines.push({ line: lineNo, error: `${field} ${result.error.message}`.trim() });
      continue;
    }
    if (result.kind !== "trajectories") continue;
    for (const t of result.trajectories) {
      const row = candidates.length;
      const why = ineligibility(t);
      candidates.push(
        why === undefined ? { row, eligible: true } : { row, eligible: false, reason: why },
      );
    }
  }
  return { candidates, badLines, unit };
}

/** The picked rows' trajectories and 1-based lines (a second pass: the file is not kept). */
export async function readPickedRows(
  path: string,
  name: string,
  rows: readonly number[],
): Promise<Map<number, { readonly trajectory: Trajectory; readonly line: number }>> {
  const wanted = new Set(rows);
  const found = new Map<number, { trajectory: Trajectory; line: number }>();
  let row = 0;
  for await (const { lineNo, result } of readRecords(path, { fixFormat: false, name })) {
    if (result.kind !== "trajectories") continue;
    for (const trajectory of result.trajectories) {
      if (wanted.has(row)) found.set(row, { trajectory, line: lineNo });
      row++;
    }
    if (found.size === wanted.size) break;
  }
  return found;
}
