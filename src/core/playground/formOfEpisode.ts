import type { Trajectory } from "../trajectory/types";
import type { PlaygroundForm } from "./startRequest";

type FormFields = Partial<Omit<PlaygroundForm, "isStreaming">>;

const SAMPLING: readonly (readonly [keyof FormFields, string])[] = [
  ["maxNewTokens", "max_new_tokens"],
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["topK", "top_k"],
];

function textOf(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
}

/**
 * The playground form of an episode that is followed (`/playground?episode=ID`): the prompt,
 * system prompt, tools, limits, sampling, policy and tokenizer it ran with, as far as its record
 * holds them; fields it does not hold are left out (the form keeps what it had).
 */
export function formOfEpisode(trajectory: Trajectory, catalog: readonly string[]): FormFields {
  const fields: Record<string, unknown> = {};
  const messages = trajectory.messages ?? [];
  const user = messages.find((m) => m.role === "user");
  if (user) fields.prompt = user.content;
  if (user) fields.system = messages.find((m) => m.role === "system")?.content ?? "";
  const meta = trajectory.metadata;
  if (Array.isArray(meta.tools)) {
    fields.tools = meta.tools.flatMap((t: unknown) => {
      const name = (t as { function?: { name?: unknown } } | null)?.function?.name;
      return typeof name === "string" ? [name] : [];
    });
  }
  const iterations = textOf(meta.max_iterations);
  if (iterations !== undefined) fields.maxIterations = iterations;
  const topLogprobs = textOf(meta.top_logprobs_num);
  if (topLogprobs !== undefined) fields.topLogprobs = topLogprobs;
  if (typeof meta.policy === "string") fields.policy = meta.policy;
  const sampling = trajectory.samplingParams ?? {};
  for (const [field, param] of SAMPLING) {
    const value = textOf(sampling[param]);
    if (value !== undefined) fields[field] = value;
  }
  const tokenizer = trajectory.tokenizer;
  if (tokenizer !== undefined && catalog.includes(tokenizer)) fields.tokenizer = tokenizer;
  return fields as FormFields;
}
