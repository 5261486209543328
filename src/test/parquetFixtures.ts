import type { SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";

/*
 * Parquet files built from each producer's public schema (docs/format.md "Parquet"), for tests:
 * prime-rl's rollout table (`src/zeroband/utils/parquet.py` pa_schema), prime-rl's per-step
 * samples table (`PrimeMonitor._SAMPLE_SCHEMA`) and OpenPipe ART's trajectory table
 * (`write_trajectory_groups_parquet`). Values are exact in float32 where the column is FLOAT.
 */

type Column = { readonly name: string; readonly data: unknown[] };

const list = (name: string, type: SchemaElement["type"], utf8 = false): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  {
    name: "element",
    type,
    repetition_type: "OPTIONAL",
    ...(utf8 ? { converted_type: "UTF8" as const } : {}),
  },
];
const scalar = (name: string, type: SchemaElement["type"], utf8 = false): SchemaElement => ({
  name,
  type,
  repetition_type: "OPTIONAL",
  ...(utf8 ? { converted_type: "UTF8" as const } : {}),
});
const text = (name: string) => scalar(name, "BYTE_ARRAY", true);

/** Top-level fields of a depth-first schema element list. */
function topLevel(elements: readonly SchemaElement[]): number {
  let count = 0;
  let k = 0;
  while (k < elements.length) {
    let pending = elements[k]?.num_children ?? 0;
    k += 1;
    while (pending > 0) {
      pending += (elements[k]?.num_children ?? 0) - 1;
      k += 1;
    }
    count += 1;
  }
  return count;
}

/** Codecs the fixtures are written in (the writer's default is SNAPPY). */
export type FixtureCodec = "UNCOMPRESSED" | "SNAPPY" | "ZSTD";

/**
 * A ZSTD frame (RFC 8878) holding `input` in raw blocks: valid ZSTD that any decoder reads, from
 * a store-only encoder (no ZSTD compressor is a dependency here). Frame header: single segment,
 * 4-byte content size; each block header is 3 bytes (last flag, type 0 = raw, size).
 */
export function zstdStored(input: Uint8Array): Uint8Array {
  const BLOCK = 128 * 1024;
  const blocks = Math.max(1, Math.ceil(input.length / BLOCK));
  const out = new Uint8Array(4 + 1 + 4 + blocks * 3 + input.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  out[4] = 0xa0; // Frame_Content_Size_flag 2 (4 bytes), Single_Segment_flag
  view.setUint32(5, input.length, true);
  let at = 9;
  for (let b = 0; b < blocks; b++) {
    const chunk = input.subarray(b * BLOCK, Math.min(input.length, (b + 1) * BLOCK));
    const header = (chunk.length << 3) | (b === blocks - 1 ? 1 : 0);
    out[at] = header & 0xff;
    out[at + 1] = (header >> 8) & 0xff;
    out[at + 2] = (header >> 16) & 0xff;
    out.set(chunk, at + 3);
    at += 3 + chunk.length;
  }
  return out;
}

function build(
  fields: SchemaElement[][],
  columns: Column[],
  rowGroupSize: number,
  codec: FixtureCodec = "SNAPPY",
): ArrayBuffer {
  const flat = fields.flat();
  const schema: SchemaElement[] = [{ name: "root", num_children: topLevel(flat) }, ...flat];
  return parquetWriteBuffer({
    schema,
    columnData: columns.map((c) => ({ name: c.name, data: c.data as never })),
    rowGroupSize,
    codec,
    ...(codec === "ZSTD" ? { compressors: { ZSTD: zstdStored } } : {}),
  });
}

const P = [151644, 872, 198, 16, 20, 9, 22, 30, 151645, 198, 151644, 77091, 198];

/** prime-rl rollout rows (one per sample), as records. */
export const PRIME_ROLLOUT_ROWS = [0, 1, 2].map((i) => ({
  input_tokens: P,
  output_tokens: [16 + i, 15, 20, 151645],
  input_logprobs: null,
  output_logprobs: [-0.5, -0.25, -0.125, -0.0625],
  prompt: "What is 15*7?",
  problem_id: "p7",
  completion: `10${5 + i}`,
  advantages: i === 0 ? 0.5 : -0.25,
  rewards: i === 0 ? 1 : 0,
  task_rewards: i === 0 ? 1 : 0,
  length_penalties: 0,
  step: 12,
  target_lengths: 64,
  task_type: "math",
  seed: 42 + i,
}));

export function primeRolloutParquet(rowGroupSize = 2, codec?: FixtureCodec): ArrayBuffer {
  const rows = PRIME_ROLLOUT_ROWS;
  const col = (name: keyof (typeof rows)[number]) => ({ name, data: rows.map((r) => r[name]) });
  return build(
    [
      list("input_tokens", "INT32"),
      list("output_tokens", "INT32"),
      list("input_logprobs", "FLOAT"),
      list("output_logprobs", "FLOAT"),
      [text("prompt"), text("problem_id"), text("completion")],
      [scalar("advantages", "FLOAT"), scalar("rewards", "FLOAT"), scalar("task_rewards", "FLOAT")],
      [
        scalar("length_penalties", "FLOAT"),
        scalar("step", "INT32"),
        scalar("target_lengths", "INT32"),
      ],
      [text("task_type"), scalar("seed", "INT64")],
    ],
    [
      col("input_tokens"),
      col("output_tokens"),
      col("input_logprobs"),
      col("output_logprobs"),
      col("prompt"),
      col("problem_id"),
      col("completion"),
      col("advantages"),
      col("rewards"),
      col("task_rewards"),
      col("length_penalties"),
      col("step"),
      col("target_lengths"),
      col("task_type"),
      { name: "seed", data: rows.map((r) => BigInt(r.seed)) },
    ],
    rowGroupSize,
    codec,
  );
}

const prompt = [{ role: "user", content: "What is 15*7?" }];
/** prime-rl samples rows (PrimeMonitor), as records (created_at as its ISO string). */
export const PRIME_SAMPLE_ROWS = [0, 1].map((i) => ({
  run_id: "run-abc",
  step: 12,
  tag: "",
  problem_id: 7,
  sample_id: i,
  prompt: JSON.stringify(prompt),
  completion: JSON.stringify([{ role: "assistant", content: `10${5 + i}` }]),
  trajectory: JSON.stringify([
    {
      prompt,
      completion: [{ role: "assistant", content: `10${5 + i}` }],
      reward: i === 0 ? 1 : 0,
      advantage: i === 0 ? 0.5 : -0.5,
      extras: {},
      num_input_tokens: 13,
      num_output_tokens: 4,
    },
  ]),
  answer: "105",
  env_name: "math",
  task: "arithmetic",
  info: "",
  reward: i === 0 ? 1 : 0,
  advantage: i === 0 ? 0.5 : -0.5,
  metrics: JSON.stringify({ correct: i === 0 }),
  timing: JSON.stringify({ generation_ms: 120 }),
  num_input_tokens: 0,
  num_output_tokens: 0,
  created_at: "2026-01-05T10:30:00.000Z",
}));

export function primeSamplesParquet(): ArrayBuffer {
  const rows = PRIME_SAMPLE_ROWS;
  const strings = [
    "run_id",
    "tag",
    "prompt",
    "completion",
    "trajectory",
    "answer",
    "env_name",
    "task",
    "info",
    "metrics",
    "timing",
  ] as const;
  const ints = [
    "step",
    "problem_id",
    "sample_id",
    "num_input_tokens",
    "num_output_tokens",
  ] as const;
  return build(
    [
      strings.map(text),
      ints.map((n) => scalar(n, "INT64")),
      [scalar("reward", "DOUBLE"), scalar("advantage", "DOUBLE")],
      [
        {
          ...scalar("created_at", "INT64"),
          logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" },
        },
      ],
    ],
    [
      ...strings.map((name) => ({ name, data: rows.map((r) => r[name]) })),
      ...ints.map((name) => ({ name, data: rows.map((r) => BigInt(r[name])) })),
      { name: "reward", data: rows.map((r) => r.reward) },
      { name: "advantage", data: rows.map((r) => r.advantage) },
      { name: "created_at", data: rows.map((r) => BigInt(Date.parse(r.created_at)) * 1000n) },
    ],
    1,
  );
}

/** ART trajectory rows, as records. */
export const ART_ROWS = [0, 1].map((i) => ({
  group_index: 0,
  group_metadata: null,
  group_metrics: null,
  group_logs: null,
  reward: i === 0 ? 1 : 0,
  metrics: JSON.stringify({ turns: 1 }),
  metadata: JSON.stringify({ scenario: "calc" }),
  tools: null,
  logs: ["started"],
  messages: [
    {
      role: "system",
      content: "You are a calculator.",
      tool_calls: null,
      tool_call_id: null,
      trainable: false,
    },
    {
      role: "user",
      content: "What is 15*7?",
      tool_calls: null,
      tool_call_id: null,
      trainable: false,
    },
    {
      role: "assistant",
      content: `10${5 + i}`,
      tool_calls: null,
      tool_call_id: null,
      trainable: true,
    },
  ],
}));

export function artParquet(): ArrayBuffer {
  const rows = ART_ROWS;
  const message: SchemaElement[] = [
    { name: "messages", repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { name: "element", repetition_type: "OPTIONAL", num_children: 5 },
    text("role"),
    text("content"),
    text("tool_calls"),
    text("tool_call_id"),
    scalar("trainable", "BOOLEAN"),
  ];
  return build(
    [
      [scalar("group_index", "INT64"), text("group_metadata"), text("group_metrics")],
      list("group_logs", "BYTE_ARRAY", true),
      [scalar("reward", "DOUBLE"), text("metrics"), text("metadata"), text("tools")],
      list("logs", "BYTE_ARRAY", true),
      message,
    ],
    [
      { name: "group_index", data: rows.map((r) => BigInt(r.group_index)) },
      ...(
        [
          "group_metadata",
          "group_metrics",
          "group_logs",
          "reward",
          "metrics",
          "metadata",
          "tools",
          "logs",
          "messages",
        ] as const
      ).map((name) => ({ name, data: rows.map((r) => r[name]) })),
    ],
    2,
  );
}

/** A miles dashboard column row (`save_dashboard_columns`), one per rollout sample. */
export interface DashboardColumnsRow {
  readonly sample_index: number;
  readonly response_length: number;
  readonly total_length: number;
  readonly tokens: readonly number[];
  readonly loss_mask: readonly number[];
  readonly rollout_log_probs: readonly number[];
}

/**
 * miles' `dashboard_columns/rollout_{id}.parquet` (radixark/miles:miles/ray/rollout/debug_data.py
 * `save_dashboard_columns`: polars Int32 / List(Int32) / List(Int8) / List(Float32), row groups
 * of 8).
 */
export function dashboardColumnsParquet(rows: readonly DashboardColumnsRow[]): ArrayBuffer {
  const int8List: SchemaElement[] = list("loss_mask", "INT32");
  int8List[2] = { ...(int8List[2] as SchemaElement), converted_type: "INT_8" };
  const fields = [
    [scalar("sample_index", "INT32")],
    [scalar("response_length", "INT32")],
    [scalar("total_length", "INT32")],
    list("tokens", "INT32"),
    int8List,
    list("rollout_log_probs", "FLOAT"),
  ];
  const names = Object.keys(rows[0] ?? {}) as (keyof DashboardColumnsRow)[];
  const columns = names.map((name) => ({ name, data: rows.map((r) => r[name]) }));
  return build(fields, columns, 8);
}
