import { describe, expect, it } from "vitest";
import { dumpAndColumns } from "../../test/dashboardColumnsFixture";
import { readRolloutValue } from "../formats/readRolloutLine";
import {
  rolloutDumpOfColumns,
  sampleFactsOf,
  withDumpFacts,
  withSampleFacts,
} from "./dashboardColumns";

// miles' dashboard column mirror, built from the committed miles rollout dump (real torch.save,
// scripts/fixtures/torch_fixtures.py) as save_dashboard_columns writes it, joined back to it.

describe("miles dashboard_columns joined to the rollout dump beside it", () => {
  it("finds the dump beside the column file", () => {
    expect(rolloutDumpOfColumns("/r/D/dashboard_columns/rollout_3.parquet")).toBe(
      "/r/D/rollout_data/3.pt",
    );
    expect(rolloutDumpOfColumns("/r/D/dashboard_columns/rollout_eval_4.parquet")).toBe(
      "/r/D/rollout_data/eval_4.pt",
    );
    expect(rolloutDumpOfColumns("/r/D/other/rollout_3.parquet")).toBeUndefined();
  });

  it("rows get the reward, status and group of the sample they mirror", async () => {
    const { dump, samples, table } = await dumpAndColumns();
    const alone = readRolloutValue((await table.read(0, 1))[0] as Record<string, unknown>, 1);
    if (alone.kind !== "trajectories") throw new Error(JSON.stringify(alone));
    expect(alone.trajectories[0]?.reward).toBeUndefined();

    const joined = withDumpFacts(table, sampleFactsOf(dump));
    expect(joined.summarize).toBeUndefined();
    const records = await joined.read(0, samples.length);
    for (const [k, record] of records.entries()) {
      const read = readRolloutValue(record as Record<string, unknown>, k + 1);
      if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
      const t = read.trajectories[0];
      expect(t?.reward).toBe(samples[k]?.reward);
      expect(t?.group).toBe(String(samples[k]?.group_index));
      expect(t?.status).toBe(samples[k]?.status === "truncated" ? "truncated" : "completed");
    }
  });

  it("a row no dump sample matches is left as it is", () => {
    const row = { sample_index: 99, tokens: [1] };
    expect(withSampleFacts(row, new Map([[1, { reward: 1 }]]))).toBe(row);
  });
});
