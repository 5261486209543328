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
    "output_token_ids",
    "response_token_ids",
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

/*
 * `--map SPEC`: a mapping on one command line, `key=column` pairs separated by commas. The keys:
 *   full layout:  tokens=COL (required), mask=COL, logprobs=COL, prompt-length=COL, reward=COL
 *   split layout: prompt=COL and response=COL (both required), logprobs=COL, mask=COL, reward=COL
 * `logprobs` and `mask` are per token in the full layout and per response token in the split one.
 * A column name may hold `=` (the first one splits) but not `,`.
 */

/** The keys of a `--map` spec, each with what it names (for errors and `--help`). */
export const MAP_SPEC_KEYS: Readonly<Record<string, string>> = {
  tokens: "every token's id (full layout)",
  prompt: "the prompt's token ids (split layout)",
  response: "the response's token ids (split layout)",
  mask: "0/1 per token (full) or per response token (split)",
  logprobs: "a logprob per token (full) or per response token (split)",
  "prompt-length": "the prompt's token count, without a mask (full layout)",
  reward: "the reward",
};

export type MapSpecParse =
  | { readonly ok: true; readonly mapping: ColumnMapping }
  | { readonly ok: false; readonly message: string };

/** Parses a `--map` spec (syntax above) into a mapping, or says what is wrong with it. */
export function parseMapSpec(spec: string): MapSpecParse {
  const fail = (message: string): MapSpecParse => ({ ok: false, message });
  const pairs = new Map<string, string>();
  for (const part of spec.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    if (eq <= 0) return fail(`"${item}" is not key=column (keys: ${keyList()})`);
    const key = item.slice(0, eq).trim();
    const column = item.slice(eq + 1).trim();
    if (!Object.hasOwn(MAP_SPEC_KEYS, key)) {
      return fail(`unknown key "${key}" (keys: ${keyList()})`);
    }
    if (column === "") return fail(`"${key}" names no column`);
    if (pairs.has(key)) return fail(`"${key}" is given twice`);
    pairs.set(key, column);
  }
  const get = (key: string) => pairs.get(key);
  const tokens = get("tokens");
  const prompt = get("prompt");
  const response = get("response");
  let mapping: ColumnMapping;
  if (tokens !== undefined) {
    const split = ["prompt", "response"].find((k) => pairs.has(k));
    if (split) return fail(`"tokens" (full layout) and "${split}" (split layout) cannot be mixed`);
    mapping = dropUndefined({
      layout: "full",
      tokenIds: tokens,
      lossMask: get("mask"),
      logprobs: get("logprobs"),
      promptLength: get("prompt-length"),
      reward: get("reward"),
    });
  } else if (prompt !== undefined || response !== undefined) {
    if (prompt === undefined) return fail(`"response" needs "prompt" (the split layout)`);
    if (response === undefined) return fail(`"prompt" needs "response" (the split layout)`);
    if (pairs.has("prompt-length")) {
      return fail(`"prompt-length" is for the full layout (tokens=...); "prompt" gives the prompt`);
    }
    mapping = dropUndefined({
      layout: "split",
      promptTokenIds: prompt,
      responseTokenIds: response,
      responseLogprobs: get("logprobs"),
      responseMask: get("mask"),
      reward: get("reward"),
    });
  } else {
    return fail(`name the token ids: tokens=COL, or prompt=COL,response=COL`);
  }
  const twice = mappedColumns(mapping).find((c, k, all) => all.indexOf(c) !== k);
  if (twice !== undefined) return fail(`column "${twice}" is mapped twice`);
  return { ok: true, mapping };
}

function keyList(): string {
  return Object.keys(MAP_SPEC_KEYS).join(", ");
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A mapping as the `--map` spec that parses back to it. */
export function formatMapSpec(mapping: ColumnMapping): string {
  const pairs: [string, string | undefined][] =
    mapping.layout === "full"
      ? [
          ["tokens", mapping.tokenIds],
          ["mask", mapping.lossMask],
          ["logprobs", mapping.logprobs],
          ["prompt-length", mapping.promptLength],
          ["reward", mapping.reward],
        ]
      : [
          ["prompt", mapping.promptTokenIds],
          ["response", mapping.responseTokenIds],
          ["logprobs", mapping.responseLogprobs],
          ["mask", mapping.responseMask],
          ["reward", mapping.reward],
        ];
  return pairs.flatMap(([k, c]) => (c === undefined ? [] : [`${k}=${c}`])).join(",");
}

/** A record's problem with a mapping: the column at fault (`field`) and what is wrong. */
export interface MappedRecordProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * Why `row` cannot be read through `mapping`, checked before it is: a named column missing from
 * the row, or a token-id column that is not a list of non-negative integers, a per-token column
 * that is not a list, a prompt length that is not a count. Null values of optional columns are
 * absent ones. Undefined when the row fits.
 */
export function mappedRecordProblem(
  row: Readonly<Record<string, unknown>>,
  mapping: ColumnMapping,
): MappedRecordProblem | undefined {
  const missing = mappedColumns(mapping).find((c) => !Object.hasOwn(row, c));
  if (missing !== undefined) {
    return { field: missing, message: "missing: the column mapping reads this column" };
  }
  const ids =
    mapping.layout === "full"
      ? [mapping.tokenIds]
      : [mapping.promptTokenIds, mapping.responseTokenIds];
  for (const column of ids) {
    const value = row[column];
    if (!Array.isArray(value)) {
      return { field: column, message: `expected a list of token ids, got ${kindOf(value)}` };
    }
    const bad = value.findIndex((v) => !(Number.isSafeInteger(v) && (v as number) >= 0));
    if (bad >= 0) {
      return {
        field: `${column}[${bad}]`,
        message: `expected a token id (an integer >= 0), got ${kindOf(value[bad])}`,
      };
    }
  }
  const lists =
    mapping.layout === "full"
      ? [mapping.lossMask, mapping.logprobs]
      : [mapping.responseMask, mapping.responseLogprobs];
  for (const column of lists) {
    if (column === undefined) continue;
    const value = row[column];
    if (value !== null && !Array.isArray(value)) {
      return {
        field: column,
        message: `expected a list (one value per token), got ${kindOf(value)}`,
      };
    }
  }
  const [idsColumn, perToken] =
    mapping.layout === "full"
      ? [mapping.tokenIds, "token"]
      : [mapping.responseTokenIds, "response token"];
  const count = (row[idsColumn] as unknown[]).length;
  for (const column of lists) {
    const value = column === undefined ? undefined : row[column];
    if (column !== undefined && Array.isArray(value) && value.length !== count) {
      return {
        field: column,
        message: `${value.length} values for the ${count} ${perToken}s of ${idsColumn}: expected one per ${perToken}`,
      };
    }
  }
  if (mapping.layout === "full" && mapping.promptLength !== undefined) {
    const value = row[mapping.promptLength];
    if (value !== null && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
      return {
        field: mapping.promptLength,
        message: `expected a token count, got ${kindOf(value)}`,
      };
    }
    if (typeof value === "number" && value > count) {
      const message = `${value} exceeds the ${count} tokens of ${mapping.tokenIds}`;
      return { field: mapping.promptLength, message };
    }
  }
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") {
    const shown = JSON.stringify(value.slice(0, 40));
    return `the string ${value.length > 40 ? `${shown.slice(0, -1)}..."` : shown}`;
  }
  if (typeof value === "object") return "an object";
  return String(value).slice(0, 40);
}

/**
 * A field of the slime Sample a row was mapped to (an error's `field`, e.g. `loss_mask[3]`), named
 * as the row's own column and index (`completion_mask[3]`); fields not mapped are unchanged.
 * `sample` is the mapped Sample (its `tokens` and `response_length` place the prompt).
 */
export function mappedFieldName(
  mapping: ColumnMapping,
  field: string,
  sample: Readonly<Record<string, unknown>>,
): string {
  // Fields are `name`, `name[3]` (or `name.3`), maybe with more after.
  const parts = /^([^.[]+)(?:\[(\d+)\]|\.(\d+))?/.exec(field);
  const head = parts?.[1] ?? field;
  const digits = parts?.[2] ?? parts?.[3];
  const index = digits === undefined ? undefined : Number(digits);
  const tokens = Array.isArray(sample.tokens) ? sample.tokens.length : 0;
  const responseLength = typeof sample.response_length === "number" ? sample.response_length : 0;
  const prompt = Math.max(0, tokens - responseLength);
  const at = (column: string | undefined, offset: number) => {
    if (column === undefined) return field;
    return index === undefined ? column : `${column}[${index + offset}]`;
  };
  if (head === "reward" && mapping.reward !== undefined) return mapping.reward;
  if (mapping.layout === "full") {
    if (head === "tokens") return at(mapping.tokenIds, 0);
    if (head === "loss_mask") return at(mapping.lossMask, prompt);
    if (head === "rollout_log_probs") return at(mapping.logprobs, prompt);
    if (head === "response_length") return mapping.promptLength ?? mapping.lossMask ?? field;
    return field;
  }
  if (head === "tokens") {
    return index !== undefined && index >= prompt
      ? at(mapping.responseTokenIds, -prompt)
      : at(mapping.promptTokenIds, 0);
  }
  if (head === "loss_mask") return at(mapping.responseMask, 0);
  if (head === "rollout_log_probs") return at(mapping.responseLogprobs, 0);
  if (head === "response_length") return mapping.responseTokenIds;
  return field;
}
