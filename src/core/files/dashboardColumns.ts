import type { RecordSource } from "./recordIndexer";
import type { TorchDump } from "./torchRecords";

/*
 * miles' dashboard column mirror (radixark/miles:miles/ray/rollout/debug_data.py,
 * `save_dashboard_columns`; docs/format.md "slime and miles `.pt` dumps"):
 * `D/dashboard_columns/rollout_{stem}.parquet` holds per sample `sample_index`,
 * `response_length`, `total_length`, `tokens`, `loss_mask`, `rollout_log_probs`, and nothing of
 * the reward, status or group, which sit in the rollout dump `D/rollout_data/{stem}.pt` it was
 * written beside. Opened alone, its rows get those from the dump, matched by `sample_index`
 * (the dump sample's `index`).
 */

/** The rollout dump beside a dashboard column file: `{base}/rollout_data/{stem}.pt`; else undefined. */
export function rolloutDumpOfColumns(path: string): string | undefined {
  const match = /^(.*)([\\/])dashboard_columns[\\/]rollout_((?:eval_)?\d+)\.parquet$/.exec(path);
  if (!match) return undefined;
  const [, base = "", sep = "/", stem = ""] = match;
  return `${base}${sep}rollout_data${sep}${stem}.pt`;
}

/** What a dump sample knows that its columns do not, by the sample's `index`. */
export type SampleFacts = ReadonlyMap<number, Readonly<Record<string, unknown>>>;

const isScalar = (v: unknown) =>
  v === null || typeof v === "number" || typeof v === "string" || typeof v === "boolean";

/** A reward as the slime reader takes it: a scalar, or a dict of scalars (several rewards). */
function plainReward(v: unknown): boolean {
  if (isScalar(v)) return true;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  return Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(isScalar);
}

/** The reward, status and group of each sample of a rollout dump (scalars read as unpickled). */
export function sampleFactsOf(dump: TorchDump): SampleFacts {
  const facts = new Map<number, Record<string, unknown>>();
  for (const sample of dump.samples) {
    if (typeof sample !== "object" || sample === null) continue;
    const s = sample as Record<string, unknown>;
    if (typeof s.index !== "number") continue;
    const known: Record<string, unknown> = {};
    if ("reward" in s && plainReward(s.reward)) known.reward = s.reward;
    if (typeof s.status === "string") known.status = s.status;
    if (typeof s.group_index === "number" || s.group_index === null) {
      known.group_index = s.group_index;
    }
    facts.set(s.index, known);
  }
  return facts;
}

/** A column row with its dump sample's facts (and `index`); a row no sample matches is unchanged. */
export function withSampleFacts(record: unknown, facts: SampleFacts): unknown {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return record;
  const row = record as Record<string, unknown>;
  const known = typeof row.sample_index === "number" ? facts.get(row.sample_index) : undefined;
  return known ? { ...row, ...known, index: row.sample_index } : record;
}

/**
 * A dashboard column table's records with their dump's facts. Its summaries are made from those
 * joined records (a projection of the columns alone would have no reward).
 */
export function withDumpFacts(source: RecordSource, facts: SampleFacts): RecordSource {
  const { summarize: _columnsOnly, ...rest } = source;
  return {
    ...rest,
    read: async (start, end) =>
      (await source.read(start, end)).map((record) => withSampleFacts(record, facts)),
  };
}
