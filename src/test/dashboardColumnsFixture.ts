import { readFileSync } from "node:fs";
import { parquetRecordSource } from "../core/files/parquetSource";
import { torchDumpOf } from "../core/files/torchRecords";
import { openParquet } from "../core/formats/parquet";
import { openTorchFile, plainValues } from "../core/torch/torchFile";
import { fixturePath } from "./fixtureFiles";
import { dashboardColumnsParquet } from "./parquetFixtures";

// miles' dashboard column mirror of the committed miles rollout dump (real torch.save,
// scripts/fixtures/torch_fixtures.py), built as save_dashboard_columns writes it.

const ptBytes = readFileSync(fixturePath("torch/dump-details/rollout_data/3.pt"));
const ptFile = {
  byteLength: ptBytes.length,
  slice: async (start: number, end?: number) =>
    ptBytes.buffer.slice(ptBytes.byteOffset + start, ptBytes.byteOffset + (end ?? ptBytes.length)),
};

/**
 * The dump, its samples, and its column mirror's bytes and records (`sample_index` = the
 * sample's index, the per-token columns).
 */
export async function dumpAndColumns() {
  const dump = torchDumpOf(await openTorchFile(ptFile));
  const samples = (await plainValues(dump.torch, dump.samples)) as Record<string, unknown>[];
  const rows = samples.map((s) => ({
    sample_index: s.index as number,
    response_length: s.response_length as number,
    total_length: (s.tokens as number[]).length,
    tokens: s.tokens as number[],
    loss_mask: s.loss_mask as number[],
    rollout_log_probs: s.rollout_log_probs as number[],
  }));
  const buffer = dashboardColumnsParquet(rows);
  const file = {
    byteLength: buffer.byteLength,
    slice: async (a: number, b?: number) => buffer.slice(a, b),
  };
  return { dump, samples, buffer, table: parquetRecordSource(await openParquet(file)) };
}
