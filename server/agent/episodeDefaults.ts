/**
 * What an episode uses when neither the request nor the server configuration says otherwise, in one
 * place (the runner reads them; nothing else should spell these values).
 */

/** Tool-call format of the model when the runner is not told (`hermes`, `qwen_xml`, `glm`). */
export const DEFAULT_TOOL_CALL_FORMAT = "hermes";

/** Tools of an episode whose request names none. */
export const DEFAULT_EPISODE_TOOLS: readonly string[] = ["calculator"];

/** Tool iterations before the episode is cut off (`truncated`), when the request sets no limit. */
export const DEFAULT_MAX_ITERATIONS = 8;

/** How long the human tool waits for the researcher when the tool itself sets no time limit. */
export const DEFAULT_HUMAN_TIMEOUT_MS = 600_000;

/** Sampling defaults sent on every call (always explicit: newer servers default from the model). */
export const DEFAULT_SAMPLING: Readonly<Record<string, unknown>> = {
  max_new_tokens: 1024,
  temperature: 0.7,
  top_p: 0.95,
  // Faithful text: the stop token and stop strings stay in `text` (reference §2.4).
  skip_special_tokens: false,
  no_stop_trim: true,
};

/** Alternatives recorded per model token (`top_logprobs_num`) when the request does not say. */
export const DEFAULT_TOP_LOGPROBS_NUM = 5;

/** The end reason of an episode whose model answered (a turn without tool calls). */
export const COMPLETED_REASON = "the model answered with no further tool call";
