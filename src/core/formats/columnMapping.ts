/*
 * A table from an unknown producer, read through a column mapping the user picks (and the app
 * remembers per schema, keyed by `schemaKey`): which columns hold the token ids, the loss mask, the
 * logprobs and the reward. A mapped row becomes a slime Sample (prompt + response tokens,
 * response-only arrays), which the slime adapter reads and checks like any line.
 */

/** Either one column with every token (and full-length mask/logprobs), or prompt + response. */
export type ColumnMapping =
  | {
      readonly layout: "full";
      readonly tokenIds: string;
      /** 0/1 per token; the untrained tokens before the first trained one are the prompt. */
      readonly lossMask?: string;
      /** One per token (prompt positions are ignored). */
      readonly logprobs?: string;
      /** Without a mask: a column holding the prompt's token count. */
      readonly promptLength?: string;
      readonly reward?: string;
    }
  | {
      readonly layout: "split";
      readonly promptTokenIds: string;
      readonly responseTokenIds: string;
      /** One per response token. */
      readonly responseLogprobs?: string;
      /** 0/1 per response token. */
      readonly responseMask?: string;
      readonly reward?: string;
    };

/** The columns a mapping names (in its own field order), for checking them against a table's. */
export function mappedColumns(mapping: ColumnMapping): string[] {
  const { layout: _layout, ...fields } = mapping;
  return Object.values(fields).filter((c): c is string => typeof c === "string");
}

/**
 * Why `mapping` cannot be applied to a table with `columns` (a column it names is missing, or
 * one column is named twice), or undefined when it can.
 */
export function mappingProblem(
  mapping: ColumnMapping,
  columns: readonly string[],
): string | undefined {
  const named = mappedColumns(mapping);
  const missing = named.find((c) => !columns.includes(c));
  if (missing !== undefined) return `the table has no column "${missing}"`;
  const twice = named.find((c, k) => named.indexOf(c) !== k);
  if (twice !== undefined) return `column "${twice}" is mapped twice`;
  return undefined;
}

/** The key a mapping is remembered under: the table's column names, order-independent. */
export function schemaKey(columns: readonly string[]): string {
  return [...columns].sort().join("\u0000");
}

const NAMES = {
  tokenIds: ["token_ids", "input_ids", "tokens", "all_token_ids"],
  lossMask: ["loss_mask", "token_loss_mask", "mask", "action_mask", "attention_mask_loss"],
  logprobs: ["logprobs", "log_probs", "token_logprobs"],
  promptTokenIds: ["prompt_ids", "prompt_token_ids", "prompt_tokens", "input_tokens"],
  responseTokenIds: [
    "completion_ids",
    "completion_token_ids",
    "response_ids",
    "response_tokens",
    "output_tokens",
    "output_ids",
  ],
  responseLogprobs: [
    "completion_logprobs",
    "response_logprobs",
    "output_logprobs",
    "rollout_log_probs",
  ],
  responseMask: ["completion_mask", "response_mask", "output_mask"],
  reward: ["reward", "rewards", "score", "scores"],
} as const;

function pick(columns: ReadonlySet<string>, names: readonly string[]): string | undefined {
  return names.find((n) => columns.has(n));
}

/** A first guess from column names, for the dialog to start from; undefined when nothing fits. */
export function suggestColumnMapping(columnList: readonly string[]): ColumnMapping | undefined {
  const columns = new Set(columnList);
  const reward = pick(columns, NAMES.reward);
  const prompt = pick(columns, NAMES.promptTokenIds);
  const response = pick(columns, NAMES.responseTokenIds);
  if (prompt && response) {
    return {
      layout: "split",
      promptTokenIds: prompt,
      responseTokenIds: response,
      responseLogprobs: pick(columns, NAMES.responseLogprobs),
      responseMask: pick(columns, NAMES.responseMask),
      reward,
    };
  }
  const tokenIds = pick(columns, NAMES.tokenIds);
  if (!tokenIds) return undefined;
  return {
    layout: "full",
    tokenIds,
    lossMask: pick(columns, NAMES.lossMask),
    logprobs: pick(columns, NAMES.logprobs),
    reward,
  };
}

function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/**
 * One row through `mapping`, as a slime Sample; the mapped columns are consumed, every other one
 * is kept verbatim. Values of the wrong shape are passed on as they are, so the slime reader names
 * the field (`tokens`, `loss_mask`, `rollout_log_probs`) that is wrong.
 */
export function applyColumnMapping(
  row: Readonly<Record<string, unknown>>,
  mapping: ColumnMapping,
): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...row };
  const take = (column: string | undefined): unknown => {
    if (column === undefined) return undefined;
    const value = rest[column];
    delete rest[column];
    return value;
  };
  const reward = take(mapping.reward);
  let sample: Record<string, unknown>;
  if (mapping.layout === "split") {
    const prompt = asArray(take(mapping.promptTokenIds)) ?? [];
    const response = take(mapping.responseTokenIds);
    const responseIds = asArray(response);
    sample = {
      tokens: responseIds ? [...prompt, ...responseIds] : response,
      response_length: responseIds?.length ?? 0,
      loss_mask: take(mapping.responseMask) ?? null,
      rollout_log_probs: take(mapping.responseLogprobs) ?? null,
    };
  } else {
    const tokens = take(mapping.tokenIds);
    const ids = asArray(tokens) ?? [];
    const mask = take(mapping.lossMask);
    const maskList = asArray(mask);
    const logprobs = asArray(take(mapping.logprobs));
    const promptLength = take(mapping.promptLength);
    let prompt = typeof promptLength === "number" ? promptLength : 0;
    if (maskList) {
      prompt = 0;
      while (prompt < maskList.length && (maskList[prompt] === 0 || maskList[prompt] === false))
        prompt++;
    }
    sample = {
      tokens,
      response_length: Math.max(0, ids.length - prompt),
      loss_mask: maskList
        ? maskList.slice(prompt).map((m) => (m === true ? 1 : m === false ? 0 : m))
        : (mask ?? null),
      rollout_log_probs: logprobs ? logprobs.slice(prompt) : null,
    };
  }
  return { ...rest, ...sample, ...(reward === undefined ? {} : { reward }) };
}
