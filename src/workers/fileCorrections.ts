import type { RowSummary } from "../core/files/rowSummary";
import type { CorrectionChoice } from "../core/mismatch/corrections/registry";
import type { ReplaySummary } from "../core/mismatch/corrections/replay";
import { replayCollector } from "../core/mismatch/corrections/replayRows";
import type { Trajectory } from "../core/trajectory/types";

/**
 * Every choice replayed over an indexed file as one batch (the what-if table): each line read once
 * (`readLine`), in file order, each trajectory at its row index, through the same collector
 * `rollout-lens mismatch` uses, so the numbers are `mismatch --json`'s `replays`. Each row
 * compares its default lanes, as `mismatch` without `--lanes`.
 */
export async function correctionsOfFile(
  rows: readonly RowSummary[],
  readLine: (line: number) => Promise<readonly Trajectory[]>,
  choices: readonly CorrectionChoice[],
): Promise<ReplaySummary[]> {
  const collector = replayCollector(undefined);
  let last = -1;
  for (const r of rows) {
    if (r.line === last) continue;
    last = r.line;
    const trajectories = await readLine(r.line);
    trajectories.forEach((t, k) => {
      collector.add(t, r.index + k - r.row);
    });
  }
  return collector.finish(choices).replays.map((x) => x.summary);
}
