import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/*
 * Writes `src/test/fixtures/dumps/`: the text-only default dumps of four trainers, each line built
 * as its writer builds it (docs/format.md "Text dumps"; the writers' paths are in
 * src/core/formats/textDumps.ts). Prompts are Llama-3 chat renderings, decoded with special
 * tokens as the writers decode them. Run: `npx tsx test-support/fixtureWriters/textDumps.ts`.
 */

const OUT = join(dirname(fileURLToPath(import.meta.url)), "../../src/test/fixtures/dumps");

const header = (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
const prompt = (q: string) =>
  `<|begin_of_text|>${header("system")}Solve the problem.<|eot_id|>${header("user")}${q}<|eot_id|>${header("assistant")}`;

function write(path: string, lines: unknown[]): void {
  mkdirSync(dirname(join(OUT, path)), { recursive: true });
  // Python's json.dumps separators (", ", ": ") where the writer uses its default.
  writeFileSync(join(OUT, path), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

rmSync(OUT, { recursive: true, force: true });

// SkyRL dump_per_dataset_eval_results: one file per data source, then aggregated_results.jsonl.
write(
  "skyrl/dumped_evals/global_step_10_evals/gsm8k.jsonl",
  [
    ["What is 6 * 7?", "6 * 7 = 42. The answer is 42.<|eot_id|>", 1.0, "stop"],
    ["What is 9 + 10?", "9 + 10 = 21", 0.0, "length"],
  ].map(([q, a, score, stop]) => ({
    input_prompt: prompt(q as string),
    output_response: a,
    score,
    stop_reason: stop,
    env_class: "gsm8k",
    env_extras: {
      reward_spec: { method: "rule", ground_truth: q === "What is 6 * 7?" ? "42" : "19" },
    },
    data_source: "openai/gsm8k",
  })),
);
write("skyrl/dumped_evals/global_step_10_evals/aggregated_results.jsonl", [
  { "eval/openai/gsm8k/avg_score": 0.5, "eval/all/avg_score": 0.5 },
]);

// NeMo-RL validate(): log_batched_dict_as_jsonl({"content": message logs, "rewards": ...}).
write(
  "nemo-rl/val_data_step3.jsonl",
  [
    ["What is 6 * 7?", "The answer is 42.", 1.0],
    ["What is 9 + 10?", "The answer is 21.", 0.0],
  ].map(([q, a, r], idx) => ({
    content: [
      [
        { role: "user", content: `${header("user")}${q}<|eot_id|>${header("assistant")}` },
        { role: "assistant", content: `${a}<|eot_id|>` },
      ],
    ],
    rewards: [r],
    idx,
  })),
);

// AReaL _dump_trajectory: rollout/{tail_version}/{task_id}.jsonl, one line per sample of the batch.
write(
  "areal/rollout/3/1742.jsonl",
  [0, 1].map((i) => ({
    task_id: 1742,
    sample_idx: i,
    seqlen: 40,
    prompt_len: 30,
    head_version: 2,
    tail_version: 3,
    version_rle:
      i === 0
        ? [
            [2, 4],
            [3, 6],
          ]
        : [[3, 10]],
    reward: i === 0 ? 1.0 : 0.0,
    prompt: prompt("What is 6 * 7?"),
    completion: i === 0 ? "The answer is 42.<|eot_id|>" : "It is 41.<|eot_id|>",
    segments: [
      { role: "prompt", len: 30, text: prompt("What is 6 * 7?") },
      {
        role: "gen",
        len: 10,
        text: i === 0 ? "The answer is 42.<|eot_id|>" : "It is 41.<|eot_id|>",
      },
    ],
  })),
);

// miles save_debug_trajectory_data: trajectory/{rollout_id}.jsonl (eval_{id} for evaluation),
// compact separators.
const milesRow = (index: number, reward: number) => ({
  sample_index: index,
  group_index: Math.floor(index / 2),
  status: index === 1 ? "truncated" : "completed",
  reward,
  prompt: [{ role: "user", content: "What is 6 * 7?" }],
  messages: [
    { role: "user", content: "What is 6 * 7?" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ type: "function", function: { name: "calc", arguments: '{"e": "6*7"}' } }],
    },
    { role: "tool", content: "42" },
    { role: "assistant", content: "The answer is 42." },
  ],
});
write("miles/trajectory/4.jsonl", [milesRow(0, 1), milesRow(1, 0)]);
write("miles/trajectory/eval_4.jsonl", [milesRow(0, 1)]);

// ART v2 write_trajectory_groups_parquet rows (as records, one a line): a trajectory with plain
// messages, one recording `exchanges` (so `messages` is null), and a group with no trajectory.
const compact = (v: unknown) => JSON.stringify(v);
const choice = {
  finish_reason: "stop",
  index: 0,
  logprobs: {
    content: [
      { token: "105", bytes: [49, 48, 53], logprob: -0.01, top_logprobs: [] },
      { token: ".", bytes: [46], logprob: -0.4, top_logprobs: [] },
    ],
  },
  message: { content: "105.", role: "assistant" },
};
const artTrajectory = (exchanges: unknown[]) => ({
  messages_and_choices: [{ role: "user", content: "What is 15*7?" }, choice],
  tools: null,
  additional_histories: [],
  reward: 1.0,
  metrics: { turns: 1 },
  metadata: {},
  logs: [],
  exchanges,
});
const artCommon = (g: number) => ({
  format_version: 2,
  group_index: g,
  group_json: compact({ metadata: {}, metrics: {}, logs: [] }),
  group_metadata: null,
  group_metrics: null,
  group_logs: null,
});
write("art/trajectories.v2.jsonl", [
  {
    ...artCommon(0),
    trajectory_index: 0,
    trajectory_json: compact(artTrajectory([])),
    reward: 1.0,
    metrics: compact({ turns: 1 }),
    metadata: null,
    tools: null,
    logs: null,
    messages: [
      {
        role: "user",
        content: "What is 15*7?",
        tool_calls: null,
        tool_call_id: null,
        trainable: false,
      },
      { role: "assistant", content: "105.", tool_calls: null, tool_call_id: null, trainable: true },
    ],
  },
  {
    ...artCommon(0),
    trajectory_index: 1,
    trajectory_json: compact(artTrajectory([{ request: {}, response: {} }])),
    reward: 1.0,
    metrics: compact({ turns: 1 }),
    metadata: null,
    tools: null,
    logs: null,
    messages: null,
  },
  {
    ...artCommon(1),
    trajectory_index: null,
    trajectory_json: null,
    reward: null,
    metrics: null,
    metadata: null,
    tools: null,
    logs: null,
    messages: null,
  },
]);
