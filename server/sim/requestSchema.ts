import { z } from "zod";

const int = z.number().int();
const intOrList = z.union([int, z.array(int)]);

/** `sampling_params` as SGLang accepts it; unknown keys pass through untouched. */
export const samplingParamsSchema = z.looseObject({
  max_new_tokens: int.nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: int.nullish(),
  min_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stop_token_ids: z.array(int).nullish(),
  ignore_eos: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  spaces_between_special_tokens: z.boolean().nullish(),
  no_stop_trim: z.boolean().nullish(),
  n: int.min(1).nullish(),
  sampling_seed: int.nullish(),
  json_schema: z.string().nullish(),
  regex: z.string().nullish(),
  ebnf: z.string().nullish(),
  /** The simulator reads `custom_params.policy` to pick a scripted policy per request. */
  custom_params: z.looseObject({ policy: z.string().optional() }).nullish(),
});

export type SamplingParamsBody = z.infer<typeof samplingParamsSchema>;

/** `POST /generate` body (GenerateReqInput), single or batch. */
export const generateBodySchema = z.looseObject({
  text: z.union([z.string(), z.array(z.string())]).nullish(),
  input_ids: z.union([z.array(int), z.array(z.array(int))]).nullish(),
  input_embeds: z.unknown().optional(),
  sampling_params: z.union([samplingParamsSchema, z.array(samplingParamsSchema)]).nullish(),
  return_logprob: z.union([z.boolean(), z.array(z.boolean())]).nullish(),
  logprob_start_len: intOrList.nullish(),
  top_logprobs_num: intOrList.nullish(),
  token_ids_logprob: z.union([z.array(int), z.array(z.array(int))]).nullish(),
  return_text_in_logprobs: z.boolean().nullish(),
  return_routed_experts: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  rid: z.union([z.string(), z.array(z.string())]).nullish(),
});

export type GenerateBody = z.infer<typeof generateBodySchema>;

export const abortBodySchema = z.looseObject({
  rid: z.string().nullish(),
  abort_all: z.boolean().nullish(),
});

export const tokenizeBodySchema = z.looseObject({
  prompt: z.union([z.string(), z.array(z.string())]),
  add_special_tokens: z.boolean().nullish(),
});

export const detokenizeBodySchema = z.looseObject({
  tokens: z.union([z.array(int), z.array(z.array(int))]),
  skip_special_tokens: z.boolean().nullish(),
});

interface FlatIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code: string;
}

// A union failure (e.g. `sampling_params` is an object or a list) says only "Invalid input"; the
// branch that got deepest names the real culprit, which is what pydantic would report.
function flatten(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): FlatIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) {
    return [{ path, message: issue.message, code: issue.code }];
  }
  const branches = issue.errors.map((branch) => branch.flatMap((inner) => flatten(inner, path)));
  const depth = (branch: FlatIssue[]) => Math.max(0, ...branch.map((i) => i.path.length));
  const deepest = branches.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
  return depth(deepest) > path.length
    ? deepest
    : [{ path, message: issue.message, code: issue.code }];
}

/** A pydantic-style summary of schema failures, the text SGLang puts in its 400 ErrorResponse. */
export function describeSchemaError(error: z.ZodError, model: string): string {
  const issues = error.issues.flatMap((issue) => flatten(issue, []));
  const lines = issues.map(
    (issue) =>
      `${issue.path.map(String).join(".") || "body"}\n  ${issue.message} [type=${issue.code}]`,
  );
  const count = issues.length;
  return `${count} validation error${count === 1 ? "" : "s"} for ${model}\n${lines.join("\n")}`;
}
