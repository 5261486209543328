import { isNumbers, isRecord } from "../isRecord";
import { plainValues } from "../torch/torchFile";
import type { TorchDump } from "./torchRecords";

/*
 * slime/miles train dumps joined to their rollout dump (docs/format.md "slime and miles `.pt`
 * dumps"): `train_data/{id}.pt` or `{id}_{rank}.pt`, the `format_version: 2` payload of
 * slime's train_data_utils.py, holds per sample the trainer's `log_probs`, the reference
 * model's `ref_log_probs`, `advantages` and `entropy` over the response tokens. Its samples are
 * matched to the rollout dump's by `rollout_position` (the rollout sample's place in its dump),
 * else by `sample_index` (the rollout sample's `index`), and become lanes `trainer` and
 * `reference` and per-token `advantages` / `entropy`.
 */

export const TRAINER_LANE = "trainer";
export const REFERENCE_LANE = "reference";

/** A rollout dump's place: `{base}/rollout_data/{id}.pt` (`id` is `N` or `eval_N`). */
export interface RolloutDumpPlace {
  readonly base: string;
  readonly id: string;
  /** The folder its train dumps are in: `{base}/train_data` (with the path's separator). */
  readonly trainDir: string;
}

/** Where rollout dump `path` sits, when it is `.../rollout_data/{id}.pt`; else undefined. */
export function rolloutDumpPlace(path: string): RolloutDumpPlace | undefined {
  const match = /^(.*)([\\/])rollout_data[\\/]((?:eval_)?\d+)\.pt$/.exec(path);
  if (!match) return undefined;
  const [, base = "", sep = "/", id = ""] = match;
  return { base, id, trainDir: `${base}${sep}train_data` };
}

/**
 * True when file `name` of the train_data folder is a train dump of rollout `id`: `{id}.pt`
 * (slime's --dump-details) or `{id}_{rank}.pt` (miles').
 */
export function isTrainDumpName(id: string, name: string): boolean {
  if (name === `${id}.pt`) return true;
  return name.startsWith(`${id}_`) && /^\d+\.pt$/.test(name.slice(id.length + 1));
}

/** The train dump names of rollout `id` among a train_data folder's `names`: `{id}.pt`, then by rank. */
export function trainDumpNames(id: string, names: readonly string[]): string[] {
  const rank = (name: string) =>
    name === `${id}.pt` ? -1 : Number.parseInt(name.slice(id.length + 1), 10);
  return names.filter((name) => isTrainDumpName(id, name)).sort((a, b) => rank(a) - rank(b));
}

interface TrainEntry {
  readonly dump: TorchDump;
  readonly sample: Readonly<Record<string, unknown>>;
}

/** The train samples of one rollout, by the key that joins them to the rollout dump. */
export interface TrainJoin {
  readonly key: "rollout_position" | "sample_index";
  readonly entries: ReadonlyMap<number, TrainEntry>;
}

/** The join of train dumps' samples (several ranks' files together), or undefined when none. */
export function trainJoinOf(dumps: readonly TorchDump[]): TrainJoin | undefined {
  const samples = dumps.flatMap((dump) =>
    dump.samples.filter(isRecord).map((sample) => ({ dump, sample })),
  );
  if (samples.length === 0) return undefined;
  const key = samples.every((s) => typeof s.sample.rollout_position === "number")
    ? "rollout_position"
    : samples.every((s) => typeof s.sample.sample_index === "number")
      ? "sample_index"
      : undefined;
  if (!key) return undefined;
  const entries = new Map<number, TrainEntry>();
  for (const entry of samples) entries.set(entry.sample[key] as number, entry);
  return { key, entries };
}

/** The train sample of rollout sample `position` (its `index` is `sampleIndex`), as plain data. */
export async function trainSampleFor(
  join: TrainJoin,
  position: number,
  sampleIndex: unknown,
): Promise<Record<string, unknown> | undefined> {
  const k = join.key === "rollout_position" ? position : sampleIndex;
  const entry = typeof k === "number" ? join.entries.get(k) : undefined;
  if (!entry) return undefined;
  return (await plainValues(entry.dump.torch, entry.sample)) as Record<string, unknown>;
}

/**
 * A rollout record with its train sample's values: `log_probs` -> lane `trainer`,
 * `ref_log_probs` -> lane `reference` (response-only, placed after the prompt with nulls before),
 * `advantages` and `entropy` kept per response token, the rest under `train_dump`.
 */
export function withTrainSample(
  record: Readonly<Record<string, unknown>>,
  train: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const tokens = Array.isArray(record.tokens) ? record.tokens.length : 0;
  const response = typeof record.response_length === "number" ? record.response_length : tokens;
  const prompt = Math.max(0, tokens - response);
  // A lane as long as the response sits after the prompt; any other length is left for the
  // lane check to report (it names the lane and both lengths).
  const lane = (values: number[]) =>
    values.length === response
      ? (new Array(prompt).fill(null) as (number | null)[]).concat(values)
      : values;
  const lanes: Record<string, unknown> = isRecord(record.logprob_lanes)
    ? { ...record.logprob_lanes }
    : {};
  const {
    log_probs,
    ref_log_probs,
    advantages,
    entropy,
    rollout_log_probs: _sameAsRollout,
    ...rest
  } = train;
  if (isNumbers(log_probs)) lanes[TRAINER_LANE] = lane(log_probs);
  if (isNumbers(ref_log_probs)) lanes[REFERENCE_LANE] = lane(ref_log_probs);
  const out: Record<string, unknown> = { ...record, train_dump: rest };
  if (Object.keys(lanes).length > 0) out.logprob_lanes = lanes;
  if (isNumbers(advantages)) out.advantages = advantages;
  if (isNumbers(entropy)) out.entropy = entropy;
  return out;
}
