import type { Trajectory } from "../trajectory/types";
import type { FormatId } from "./types";

/*
 * Why a file or trajectory has no token ids, in words a researcher can act on. Drift and mismatch
 * compare the tokens a trainer used with the tokens the model generated: with decoded text only,
 * nothing can be compared, so every check is off rather than quietly skipping rows.
 */

const VERL_REASON =
  "this file holds decoded text only (verl's trainer.rollout_data_dir dump writes input, output, " +
  "score and step, decoded with special tokens skipped), so no drift or mismatch check can run on " +
  "it. Enable token ids in your trainer's dump, e.g. write the batch's prompts/responses token ids " +
  "and response_mask (with actor_rollout_ref.rollout.calculate_log_probs=True for rollout_log_probs) " +
  "as slime Sample or rollout-lens/v1 lines, or use a trainer whose dump keeps ids (slime, atropos, " +
  "NeMo-RL train_data_step{N}.jsonl).";

const ATIF_REASON =
  "this ATIF trajectory records no token ids (steps' metrics.completion_token_ids, ATIF v1.3+, and " +
  "prompt_token_ids, v1.4+), only its messages, so no drift or mismatch check can run on it. Have " +
  "the agent record the ids it sent and received in each step's metrics.";

const PRIME_REASON =
  "this file holds decoded text only (prime-rl's per-step samples table keeps the prompt and " +
  "completion messages, reward, advantage and token counts, not the token ids), so no drift or " +
  "mismatch check can run on it. Enable token ids in your trainer's dump, e.g. save the rollouts' " +
  "prompt_ids/completion_ids and completion logprobs next to it (as rollout-lens/v1 or slime lines).";

const ART_REASON =
  "this file holds decoded text only (ART's trajectory table keeps messages, which of them are " +
  "trainable and the reward, not token ids or logprobs), so no drift or mismatch check can run on " +
  "it. Enable token ids in your trainer's dump, e.g. record each completion's token ids and " +
  "logprobs (as rollout-lens/v1 or slime lines).";

/** A decoded-text dump's reason: what its writer keeps, and where the ids are instead. */
function textDump(what: string, instead: string): string {
  return (
    `this file holds decoded text only (${what}), so no drift or mismatch check can run on it. ` +
    instead
  );
}

const SKYRL_REASON = textDump(
  "SkyRL's dumped_evals keep input_prompt and output_response decoded, score and stop_reason",
  "SkyRL's training batches carry the ids: dump prompt_token_ids/response_ids and loss masks as " +
    "slime or rollout-lens/v1 lines.",
);
const NEMO_VAL_REASON = textDump(
  "NeMo-RL's val_data_step{N}.jsonl keeps each message's role and content and the reward",
  "Its train_data_step{N}.jsonl keeps token_ids, the loss mask and generation logprobs: check those.",
);
const AREAL_REASON = textDump(
  "AReaL's rollout dump keeps prompt and completion decoded, segment lengths, versions and reward",
  "Token counts per segment are kept (segments[].len), not the ids: dump input_ids and loss_mask " +
    "from the trajectory tensors as slime or rollout-lens/v1 lines.",
);
const MILES_TRAJECTORY_REASON = textDump(
  "miles' trajectory sidecar keeps each sample's messages, status and reward",
  "The ids are in the rollout dump next to it (rollout_data/{id}.pt, or dashboard_columns/): open that.",
);

const TEXT_TABLE_REASON = textDump(
  "its records hold a prompt and a completion, or a chat conversation, as text, and maybe a reward, but no id column",
  "Write the ids the model received and generated beside the text (prompt_ids/completion_ids or " +
    "tokens with a loss mask, as slime or rollout-lens/v1 lines), or open the trainer's own dump " +
    "that keeps them.",
);
const TINKER_SUMMARY_REASON =
  "this file holds no tokens and no text (Tinker's rollout summaries keep each trajectory's " +
  "rewards, per-step lengths and metrics), so no drift or mismatch check can run on it. The " +
  "sampled ids and logprobs are in capture/sample.jsonl when the run was wrapped in " +
  "tinker_cookbook.capture (JsonlFileSink): open that.";

const VERIFIERS_REASON =
  "this verifiers trace holds no token ids on this branch (an eval relay turn, or a trace that " +
  "failed before its first model call), so no drift or mismatch check can run on it. Traces " +
  "sampled through a renderer client record each node's token_ids.";

/** Formats whose records never carry token ids, and why. */
const TEXT_ONLY: ReadonlyMap<string, string> = new Map([
  ["verl", VERL_REASON],
  ["prime", PRIME_REASON],
  ["art", ART_REASON],
  ["skyrl-eval", SKYRL_REASON],
  ["nemo-rl-val", NEMO_VAL_REASON],
  ["areal", AREAL_REASON],
  ["miles-trajectory", MILES_TRAJECTORY_REASON],
  ["text-table", TEXT_TABLE_REASON],
  ["tinker-summary", TINKER_SUMMARY_REASON],
]);

/**
 * Why no record of `format` has token ids; undefined when the format carries them. The CLI's
 * `drift` exits 2 with this message for such a file.
 */
export function idsAbsentReason(format: FormatId | string | undefined): string | undefined {
  return format === undefined ? undefined : TEXT_ONLY.get(format);
}

/**
 * Why this trajectory has no token ids (a text-only record: no segments); undefined when it has
 * them. Covers formats that carry ids only sometimes (ATIF before v1.3, or without metrics).
 */
export function trajectoryIdsAbsentReason(t: Trajectory): string | undefined {
  if (t.segments.some((s) => s.tokenIds.length > 0)) return undefined;
  if (t.format === "atif") return ATIF_REASON;
  if (t.format === "verifiers") return VERIFIERS_REASON;
  return (
    idsAbsentReason(t.format) ??
    "this trajectory holds no token ids (text only), so no drift or mismatch check can run on it."
  );
}
