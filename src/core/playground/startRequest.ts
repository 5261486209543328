import type { StartEpisodeRequest } from "../wire/episodes";

/** The playground form as the inputs hold it: numbers are still text. */
export interface PlaygroundForm {
  readonly system: string;
  readonly prompt: string;
  readonly tools: readonly string[];
  readonly maxIterations: string;
  readonly maxNewTokens: string;
  readonly temperature: string;
  readonly topP: string;
  readonly topK: string;
  /** Alternatives recorded per model token (`top_logprobs_num`, 0..20); empty = the server's 5. */
  readonly topLogprobs: string;
  /** Simulator policy; empty = the simulator's default (and never sent to a real SGLang). */
  readonly policy: string;
  /** A tokenizer of the catalog, whose family the episode speaks; empty = the server's default. */
  readonly tokenizer: string;
  readonly isStreaming: boolean;
}

export type FormField = keyof PlaygroundForm;
type NumberField =
  | "maxIterations"
  | "maxNewTokens"
  | "temperature"
  | "topP"
  | "topK"
  | "topLogprobs";

export type BuildResult =
  | { readonly ok: true; readonly request: StartEpisodeRequest }
  | { readonly ok: false; readonly errors: Partial<Record<FormField, string>> };

interface NumberRule {
  readonly field: NumberField;
  readonly param: string;
  readonly isInteger: boolean;
  readonly min: number;
  readonly max: number;
}

// SGLang's own bounds: top_k -1 means "all tokens"; temperature 0 is greedy.
const SAMPLING_RULES: readonly NumberRule[] = [
  { field: "maxNewTokens", param: "max_new_tokens", isInteger: true, min: 1, max: 1_000_000 },
  { field: "temperature", param: "temperature", isInteger: false, min: 0, max: 100 },
  { field: "topP", param: "top_p", isInteger: false, min: 0, max: 1 },
  { field: "topK", param: "top_k", isInteger: true, min: -1, max: 1_000_000 },
];

function readNumber(
  text: string,
  rule: Omit<NumberRule, "param">,
): { value?: number; error?: string } {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { error: `not a number: "${trimmed}"` };
  if (rule.isInteger && !Number.isInteger(value)) return { error: "must be a whole number" };
  if (value < rule.min || value > rule.max)
    return { error: `must be between ${rule.min} and ${rule.max}` };
  return { value };
}

/**
 * Turns the playground form into the body of `POST /api/episodes`, or names each bad field.
 * Empty number fields are left out so the server's defaults apply; `policy` is only sent when
 * `isSimulated` (a real SGLang would reject the custom param).
 */
export function buildStartRequest(form: PlaygroundForm, isSimulated: boolean): BuildResult {
  const errors: Partial<Record<FormField, string>> = {};
  if (form.prompt.trim() === "") errors.prompt = "the user prompt must not be empty";
  const sampling: Record<string, number> = {};
  for (const rule of SAMPLING_RULES) {
    const { value, error } = readNumber(form[rule.field], rule);
    if (error) errors[rule.field] = error;
    else if (value !== undefined) sampling[rule.param] = value;
  }
  const iterations = readNumber(form.maxIterations, {
    field: "maxIterations",
    isInteger: true,
    min: 0,
    max: 1_000,
  });
  if (iterations.error) errors.maxIterations = iterations.error;
  const topLogprobs = readNumber(form.topLogprobs, {
    field: "topLogprobs",
    isInteger: true,
    min: 0,
    max: 20,
  });
  if (topLogprobs.error) errors.topLogprobs = topLogprobs.error;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const request: StartEpisodeRequest = {
    prompt: form.prompt,
    tools: [...form.tools],
    stream: form.isStreaming,
    ...(form.system.trim() === "" ? {} : { system: form.system }),
    ...(iterations.value === undefined ? {} : { max_iterations: iterations.value }),
    ...(topLogprobs.value === undefined ? {} : { top_logprobs_num: topLogprobs.value }),
    ...(Object.keys(sampling).length === 0 ? {} : { sampling_params: sampling }),
    ...(isSimulated && form.policy !== "" ? { policy: form.policy } : {}),
    ...(form.tokenizer === "" ? {} : { tokenizer: form.tokenizer }),
  };
  return { ok: true, request };
}
