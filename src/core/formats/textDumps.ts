import { isRecord } from "../isRecord";
import type { ChatMessage, Trajectory, TrajectoryStatus } from "../trajectory/types";
import { contentText } from "./textRecords";
import type { FormatAdapter, FormatId, ReadContext, ReadResult } from "./types";

/*
 * Default dumps that keep decoded text and a reward but no token ids (docs/format.md "Text
 * dumps"), each read as its writer writes it: SkyRL's eval dump, NeMo-RL's validation dump,
 * AReaL's rollout dump and miles' trajectory sidecar. They open as text with their rewards;
 * drift and mismatch say why they cannot check them (idsAbsent.ts). Every key stays verbatim
 * in metadata.
 */

type Rec = Readonly<Record<string, unknown>>;

function toMessages(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((m) => ({
    ...m,
    role: typeof m.role === "string" ? m.role : "unknown",
    content: contentText(m.content),
  }));
}

interface TextFacts {
  readonly reward: number | null | undefined;
  readonly messages: ChatMessage[];
  readonly group?: string;
  readonly status?: TrajectoryStatus;
  readonly extra?: Record<string, unknown>;
}

function textTrajectory(format: FormatId, value: Rec, context: ReadContext, facts: TextFacts) {
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format,
    status: facts.status ?? "completed",
    reward: facts.reward,
    segments: [],
    messages: facts.messages,
    ...(facts.group === undefined ? {} : { group: facts.group }),
    metadata: { ...value, ...facts.extra },
  };
  return { ok: true as const, trajectories: [t] };
}

function badReward(field: string): ReadResult {
  return { ok: false, error: { field, message: "expected a number, a list of numbers or null" } };
}

/** A number, or a list of them summed (per-token rewards); null stays null. */
function rewardValue(value: unknown): number | null | undefined | "bad" {
  if (value === undefined || value === null) return value;
  if (typeof value === "number") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "number")) {
    return value.reduce((a: number, b: number) => a + b, 0);
  }
  return "bad";
}

/**
 * SkyRL `dump_per_dataset_eval_results` (NovaSky-AI/SkyRL:skyrl/train/utils/trainer_utils.py):
 * `dumped_evals/global_step_{N}_evals/{data_source}.jsonl`, one line per sample:
 * `input_prompt` and `output_response` (decoded), `score`, `stop_reason`, `env_class`,
 * `env_extras`, `data_source`.
 */
function readSkyrlEval(value: Rec, context: ReadContext): ReadResult {
  const reward = rewardValue(value.score);
  if (reward === "bad") return badReward("score");
  const messages: ChatMessage[] = [
    { role: "user", content: String(value.input_prompt) },
    { role: "assistant", content: String(value.output_response) },
  ];
  const status: TrajectoryStatus = value.stop_reason === "length" ? "truncated" : "completed";
  return textTrajectory("skyrl-eval", value, context, { reward, messages, status });
}

/**
 * NeMo-RL's validation dump (`NVIDIA-NeMo/RL:nemo_rl/algorithms/grpo.py`, `validate`):
 * `val_data_step{N}.jsonl` through `log_batched_dict_as_jsonl`, so a batch of one per line:
 * `content` (one message log of `role` / `content`), `rewards`, `idx`.
 */
function readNemoRlVal(value: Rec, context: ReadContext): ReadResult {
  const content = value.content;
  const log = Array.isArray(content) && content.length === 1 && Array.isArray(content[0]);
  const messages = toMessages(log ? (content as unknown[])[0] : content);
  const raw =
    Array.isArray(value.rewards) && value.rewards.length === 1 ? value.rewards[0] : value.rewards;
  const reward = rewardValue(raw);
  if (reward === "bad") return badReward("rewards");
  return textTrajectory("nemo-rl-val", value, context, { reward, messages });
}

/** AReaL `version_rle` ([version, count] runs over the generated tokens) as one version per token. */
export function expandVersionRle(rle: unknown): number[] | undefined {
  if (!Array.isArray(rle)) return undefined;
  const out: number[] = [];
  for (const run of rle) {
    if (!Array.isArray(run) || run.length !== 2) return undefined;
    const [version, count] = run as unknown[];
    if (!Number.isInteger(version) || !Number.isInteger(count) || (count as number) < 0) {
      return undefined;
    }
    if (out.length + (count as number) > 1_000_000) return undefined;
    for (let k = 0; k < (count as number); k++) out.push(version as number);
  }
  return out;
}

/**
 * AReaL `WorkflowExecutor._dump_trajectory` (inclusionAI/AReaL:areal/infra/workflow_executor.py):
 * `{log}/rollout/{tail_version}/{task_id}.jsonl` (`eval-rollout/` for evaluation), one line per
 * sample: `task_id`, `sample_idx`, `seqlen`, `prompt_len`, `head_version`, `tail_version`,
 * `reward`, `prompt` / `completion` (decoded with special tokens), newer versions `version_rle`
 * and `segments` (`role` prompt / gen / context, `len`, `text`), `original_reward`.
 * `version_rle` becomes `output_versions` (one per generated token) when its counts add up to
 * the `gen` segments' lengths.
 */
function readAreal(value: Rec, context: ReadContext): ReadResult {
  const reward = rewardValue(value.reward);
  if (reward === "bad") return badReward("reward");
  const segments = Array.isArray(value.segments) ? value.segments.filter(isRecord) : [];
  const messages: ChatMessage[] =
    segments.length > 0
      ? segments.map((s) => ({
          role: s.role === "gen" ? "assistant" : s.role === "prompt" ? "user" : "tool",
          content: typeof s.text === "string" ? s.text : "",
        }))
      : [
          { role: "user", content: String(value.prompt) },
          { role: "assistant", content: String(value.completion) },
        ];
  const versions = expandVersionRle(value.version_rle);
  const generated = segments
    .filter((s) => s.role === "gen")
    .reduce((n, s) => n + (Number.isInteger(s.len) ? (s.len as number) : 0), 0);
  const fits = versions !== undefined && (segments.length === 0 || versions.length === generated);
  const extra = fits ? { output_versions: versions } : undefined;
  return textTrajectory("areal", value, context, { reward, messages, extra });
}

const MILES_STATUS: Readonly<Record<string, TrajectoryStatus>> = {
  completed: "completed",
  truncated: "truncated",
  aborted: "aborted",
  failed: "aborted",
};

/**
 * miles `save_debug_trajectory_data` (radixark/miles:miles/ray/rollout/debug_data.py,
 * `trajectory_rows`): `D/trajectory/{rollout_id}.jsonl` (`eval_{id}` for evaluation), one row per
 * sample that kept its conversation: `sample_index`, `group_index`, `status`, `reward`,
 * `prompt`, `messages`.
 */
function readMilesTrajectory(value: Rec, context: ReadContext): ReadResult {
  const reward = rewardValue(value.reward);
  if (reward === "bad") return badReward("reward");
  const group = value.group_index === null ? undefined : String(value.group_index);
  const status = typeof value.status === "string" ? MILES_STATUS[value.status] : undefined;
  const messages = toMessages(value.messages);
  return textTrajectory("miles-trajectory", value, context, { reward, messages, group, status });
}

export const skyrlEvalAdapter: FormatAdapter = {
  id: "skyrl-eval",
  detect: (v) => typeof v.input_prompt === "string" && typeof v.output_response === "string",
  read: readSkyrlEval,
};

export const nemoRlValAdapter: FormatAdapter = {
  id: "nemo-rl-val",
  detect: (v) => Array.isArray(v.content) && "rewards" in v && !("token_ids" in v),
  read: readNemoRlVal,
};

export const arealAdapter: FormatAdapter = {
  id: "areal",
  detect: (v) =>
    "task_id" in v &&
    "sample_idx" in v &&
    "tail_version" in v &&
    typeof v.prompt === "string" &&
    typeof v.completion === "string",
  read: readAreal,
};

export const milesTrajectoryAdapter: FormatAdapter = {
  id: "miles-trajectory",
  detect: (v) =>
    "sample_index" in v && "group_index" in v && "status" in v && Array.isArray(v.messages),
  read: readMilesTrajectory,
};
