import { z } from "zod";
import { flattenSegments, type SegmentSpan } from "../trajectory/flatten";
import { lanesFromArrays, SAMPLED_LANE } from "../trajectory/lanes";
import type { ChatMessage, LaneInfo, LaneValues, Trajectory } from "../trajectory/types";
import { fastLogprobs, fastTokenIds, safeParseFast } from "./fastArrays";
import { type LaneInfoWire, laneInfoToWire, readLanesWire } from "./lanesWire";
import { nulls, segmentsByKind } from "./maskSegments";
import { chatMessageWireSchema } from "./rolloutLensSchema";
import type {
  FieldError,
  FormatAdapter,
  LaneRead,
  ReadContext,
  ReadResult,
  WireLaneRow,
} from "./types";
import {
  anyNumber,
  lengthError,
  logprobsSchema,
  remainder,
  tokenIdsSchema,
  zodFieldError,
} from "./wireSchemas";

/** atropos' "not trained" mask value (the PyTorch cross-entropy ignore index). */
const IGNORE = -100;
/**
 * atropos writes 1.0 (any value > 0 is impossible for a logprob) at masked positions, and
 * ManagedServer (`_create_sequence_node`) pads a completion's logprobs with it where the server
 * returned fewer logprobs than tokens: on a trained token it means "no logprob".
 */
const SENTINEL_LOGPROB = 1.0;

const groupSchema = z.looseObject({
  tokens: z.array(tokenIdsSchema),
  masks: z.array(z.array(z.int())),
  scores: z.array(anyNumber),
  inference_logprobs: z.array(logprobsSchema).nullish(),
});
// Mask entries are left to checkGroup: "-100 or the (validated) token id" implies an integer, so a
// second pass proving `z.int()` is redundant; on a checkGroup failure the exact schema runs first.
const fastGroupSchema = groupSchema.extend({
  tokens: z.array(fastTokenIds),
  masks: z.array(z.custom<number[]>(Array.isArray)),
  inference_logprobs: z.array(fastLogprobs).nullish(),
});
const messagesSchema = z.array(z.array(chatMessageWireSchema));

/** Score spread of a group; `zeroVariance` groups carry no GRPO advantage signal. */
export interface GroupSummary {
  readonly size: number;
  readonly scores: readonly number[];
  readonly mean: number;
  readonly std: number;
  readonly zero_variance: boolean;
}

function summarize(scores: readonly number[]): GroupSummary {
  const mean = scores.reduce((a, b) => a + b, 0) / Math.max(scores.length, 1);
  const variance = scores.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(scores.length, 1);
  const zero = scores.every((s) => s === scores[0]);
  return { size: scores.length, scores, mean, std: Math.sqrt(variance), zero_variance: zero };
}

function checkGroup(g: z.infer<typeof groupSchema>): FieldError | undefined {
  const rows = g.tokens.length;
  if (g.masks.length !== rows) return lengthError("masks", g.masks.length, "tokens", rows);
  if (g.scores.length !== rows) return lengthError("scores", g.scores.length, "tokens", rows);
  const lp = g.inference_logprobs;
  if (lp && lp.length !== rows) return lengthError("inference_logprobs", lp.length, "tokens", rows);
  for (const [i, tokens] of g.tokens.entries()) {
    const masks = g.masks[i] ?? [];
    if (masks.length !== tokens.length)
      return lengthError(`masks[${i}]`, masks.length, `tokens[${i}]`, tokens.length);
    const rowLp = lp?.[i];
    if (rowLp && rowLp.length !== tokens.length) {
      return lengthError(`inference_logprobs[${i}]`, rowLp.length, `tokens[${i}]`, tokens.length);
    }
    let k = 0;
    while (k < masks.length && (masks[k] === IGNORE || masks[k] === tokens[k])) k++;
    if (k < masks.length) {
      return {
        field: `masks[${i}][${k}]`,
        message: `is ${masks[k]}: neither -100 nor the token id ${tokens[k]}`,
      };
    }
  }
  return undefined;
}

/**
 * Segment spans of one row, read off its raw masks (token space): the untrained tokens before the
 * first trained one are the prompt, then runs of trained (model) and untrained (tool) tokens.
 * What `spansFromMask` finds on the 0/1 mask, without building that mask.
 */
function spansOfRow(masks: readonly number[]): SegmentSpan[] {
  const n = masks.length;
  let k = 0;
  while (k < n && masks[k] === IGNORE) k++;
  const spans: SegmentSpan[] = k > 0 ? [{ kind: "prompt", start: 0, end: k }] : [];
  // One tight scan per run: each token is compared once, against a constant.
  while (k < n) {
    const start = k;
    if (masks[k] === IGNORE) {
      while (k < n && masks[k] === IGNORE) k++;
      spans.push({ kind: "tool", start, end: k });
    } else {
      while (k < n && masks[k] !== IGNORE) k++;
      spans.push({ kind: "model", start, end: k });
    }
  }
  return spans;
}

/**
 * True when `logprobs[start..end)` holds a value > 0. Its own loop, apart from the invariant check's:
 * it sees only atropos rows (double arrays), so it stays monomorphic and fast (`npm run bench -- parseLine`).
 */
function hasPositive(logprobs: readonly (number | null)[], start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const v = logprobs[k];
    if (v !== null && v !== undefined && v > 0) return true;
  }
  return false;
}

/**
 * `logprobs[start..end)` of a mask-0 run with atropos' positive sentinels as null. Sentinel-only and
 * sentinel-free runs (the usual cases) are a fill or a slice: nulling a few entries of a
 * double-only array would first re-box all of them.
 */
function withoutSentinels(
  logprobs: readonly (number | null)[],
  start: number,
  end: number,
): (number | null)[] {
  let sentinels = 0;
  for (let k = start; k < end; k++) {
    const v = logprobs[k];
    if (v !== null && v !== undefined && v > 0) sentinels += 1;
  }
  if (sentinels === 0) return logprobs.slice(start, end);
  if (sentinels === end - start) return nulls(end - start);
  const out: (number | null)[] = [];
  for (let k = start; k < end; k++) {
    const v = logprobs[k] ?? null;
    out.push(v !== null && v > 0 ? null : v);
  }
  return out;
}

/**
 * `logprobs[start..end)` of a model run: ManagedServer's 1.0 pads (a logprob the server did not
 * return) as null; `other` when some other value > 0 remains, for the invariant check to report.
 */
function modelLogprobs(
  logprobs: readonly (number | null)[],
  start: number,
  end: number,
): { values: (number | null)[]; other: boolean } {
  if (!hasPositive(logprobs, start, end))
    return { values: logprobs.slice(start, end), other: false };
  let other = false;
  const values: (number | null)[] = [];
  for (let k = start; k < end; k++) {
    const v = logprobs[k] ?? null;
    if (v !== null && v > 0 && v !== SENTINEL_LOGPROB) other = true;
    values.push(v === SENTINEL_LOGPROB ? null : v);
  }
  return { values, other };
}

/** The group line checked as readAtropos checks it (schema, then lengths and masks), or why not. */
function parseGroup(
  value: Readonly<Record<string, unknown>>,
): { ok: true; group: z.infer<typeof groupSchema> } | { ok: false; error: FieldError } {
  const parsed = safeParseFast(fastGroupSchema, groupSchema, value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const problem = checkGroup(parsed.data);
  if (problem) {
    // The exact schema's error comes first, as it did when masks were checked for integers up front.
    const exact = groupSchema.safeParse(value);
    return { ok: false, error: exact.success ? problem : zodFieldError(exact.error) };
  }
  return { ok: true, group: parsed.data };
}

/**
 * ref_logprobs (the reference model's logprob per token) as each row's `reference` lane, when
 * every row has one of the right length; undefined otherwise (it then stays in metadata as read).
 */
function referenceRows(g: z.infer<typeof groupSchema>): LaneValues[] | undefined {
  const rows = refRows(g.ref_logprobs, g.tokens.length);
  const out: LaneValues[] = [];
  for (const [i, tokens] of g.tokens.entries()) {
    const lane = lanesFromArrays({ [REFERENCE_LANE]: rows?.[i] }, tokens.length).logprobLanes?.[
      REFERENCE_LANE
    ];
    if (!lane) return undefined;
    out.push(lane);
  }
  return out;
}

/**
 * Reads one atropos ScoredDataGroup line (docs/format.md) into one trajectory per row.
 * Group-level keys stay verbatim in every row's metadata (index per-row lists with source.row),
 * next to a computed `group_summary` that shows zero-variance groups.
 */
export function readAtropos(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const parsed = parseGroup(value);
  if (!parsed.ok) return parsed;
  const g = parsed.group;
  const consumed = new Set(["tokens", "masks", "scores"]);
  if (g.inference_logprobs) consumed.add("inference_logprobs");
  const messages = messagesSchema.safeParse(g.messages);
  if (messages.success && messages.data.length === g.tokens.length) consumed.add("messages");
  const refs = referenceRows(g);
  if (refs) consumed.add("ref_logprobs");
  const ownLanes = readGroupLanes(value, g.tokens);
  if (!ownLanes.ok) return { ok: false, error: ownLanes.error };
  consumed.add("logprob_lanes").add("logprob_lane_info");
  const metadata = { ...remainder(g, consumed), group_summary: summarize(g.scores) };
  const group = `L${context.line}`;
  let positiveOnModel = false;
  const trajectories = g.tokens.map((tokenIds, i): Trajectory => {
    const masks = g.masks[i] ?? [];
    const rowLp = g.inference_logprobs?.[i];
    const spans = spansOfRow(masks);
    const segments = segmentsByKind(spans, tokenIds, (span) => {
      if (!rowLp) return nulls(span.end - span.start);
      if (span.kind !== "model") return withoutSentinels(rowLp, span.start, span.end);
      const model = modelLogprobs(rowLp, span.start, span.end);
      if (model.other) positiveOnModel = true;
      return model.values;
    });
    const rowMessages: ChatMessage[] | undefined = consumed.has("messages")
      ? messages.data?.[i]
      : undefined;
    const ref = refs?.[i];
    const lanes = { ...(ref ? { [REFERENCE_LANE]: ref } : undefined), ...ownLanes.rows[i]?.lanes };
    return {
      id: `${group}.${i}`,
      source: { kind: "file", path: context.path, line: context.line, row: i },
      format: "atropos",
      status: "completed",
      reward: g.scores[i] ?? null,
      segments,
      messages: rowMessages,
      group,
      logprobLanes: Object.keys(lanes).length > 0 ? lanes : undefined,
      logprobLaneInfo: ownLanes.rows[i]?.info,
      metadata,
    };
  });
  // The schema checked every row's tokens; segmentsByKind builds each mask from its segment's kind.
  // A positive logprob on a model token is left for the invariant check to report.
  const proven = { tokenIds: true, lossMask: true, modelLogprobs: !positiveOnModel };
  return { ok: true, trajectories, proven };
}

/**
 * readAtropos for a lane scan (FormatAdapter.readLanes): the sampled logprobs and the
 * `reference` lane of every row straight from the group's arrays, for the plain line only — the
 * group valid, ref_logprobs a lane on every row, no lanes of our own, the lanes asked for among
 * those two, and every row passing the checks its trajectory would face (it opens with its
 * prompt; no logprob > 0 on a trained token). Anything else: undefined, and readAtropos reads it.
 */
export function readAtroposLanes(
  value: Readonly<Record<string, unknown>>,
  lanes: readonly [string, string] | undefined,
): LaneRead | undefined {
  if (value.logprob_lanes !== undefined || value.logprob_lane_info !== undefined) return undefined;
  // A row's default lanes with only a reference lane stored (trajectoryMismatch.defaultLanes).
  const compared = lanes ?? ([REFERENCE_LANE, SAMPLED_LANE] as const);
  if (!compared.every((name) => name === REFERENCE_LANE || name === SAMPLED_LANE)) {
    return undefined;
  }
  const parsed = parseGroup(value);
  if (!parsed.ok) return undefined;
  const g = parsed.group;
  const refs = referenceRows(g);
  if (!refs) return undefined;
  const rows: WireLaneRow[] = [];
  for (const [i, tokenIds] of g.tokens.entries()) {
    const masks = g.masks[i] ?? [];
    const rowLp = g.inference_logprobs?.[i];
    const spans = spansOfRow(masks);
    if (spans[0] && spans[0].kind !== "prompt") return undefined;
    if (rowLp && spans.some((s) => s.kind === "model" && hasPositive(rowLp, s.start, s.end))) {
      return undefined;
    }
    // A trained token's sampled logprob is rowLp's own entry (model spans keep it as read).
    const lane = (name: string) => (name === REFERENCE_LANE ? refs[i] : rowLp);
    rows.push({
      tokenIds,
      mask: masks,
      untrained: IGNORE,
      a: lane(compared[0]),
      b: lane(compared[1]),
    });
  }
  return { lanes: compared, rows };
}

/** The lane atropos' `ref_logprobs` maps to. */
export const REFERENCE_LANE = "reference";

/** `ref_logprobs` as one array per row, when it has one per row. */
function refRows(value: unknown, rows: number): unknown[] | undefined {
  return Array.isArray(value) && value.length === rows ? value : undefined;
}

/**
 * Our own `logprob_lanes` on a group line: NAME -> one per-token array per row, and one
 * `logprob_lane_info` for the group (docs/format.md).
 */
function readGroupLanes(
  value: Readonly<Record<string, unknown>>,
  tokens: readonly (readonly number[])[],
):
  | { ok: true; rows: { lanes?: Record<string, LaneValues>; info?: Record<string, LaneInfo> }[] }
  | { ok: false; error: FieldError } {
  if (value.logprob_lanes === undefined && value.logprob_lane_info === undefined) {
    return { ok: true, rows: [] };
  }
  const parsed = groupLanesSchema.safeParse(value.logprob_lanes ?? {});
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error, "logprob_lanes") };
  const rows: { lanes?: Record<string, LaneValues>; info?: Record<string, LaneInfo> }[] = [];
  for (const [i, row] of tokens.entries()) {
    const perRow: Record<string, LaneValues> = {};
    for (const [name, perRowValues] of Object.entries(parsed.data)) {
      if (perRowValues.length !== tokens.length) {
        return {
          ok: false,
          error: lengthError(`logprob_lanes.${name}`, perRowValues.length, "tokens", tokens.length),
        };
      }
      const values = perRowValues[i];
      if (values) perRow[name] = values;
    }
    const read = readLanesWire(
      {
        logprob_lanes: perRow,
        logprob_lane_info: rowInfos(value.logprob_lane_info, perRow, parsed.data),
      },
      row.length,
    );
    if (!read.ok) {
      const field = read.error.field?.replace(/^logprob_lanes\.(.*)$/, `logprob_lanes.$1[${i}]`);
      return { ok: false, error: { ...read.error, field } };
    }
    rows.push({ lanes: read.lanes, info: read.info });
  }
  return { ok: true, rows };
}

const groupLanesSchema = z.record(z.string(), z.array(logprobsSchema.nullable()));

/**
 * The group's lane info as one row sees it: a lane that is null on this row (a rescore that kept
 * the row unchanged) carries no info there; an info naming no lane of the group stays, to be refused.
 */
function rowInfos(
  infos: unknown,
  row: Readonly<Record<string, LaneValues>>,
  group: Readonly<Record<string, unknown>>,
): unknown {
  if (typeof infos !== "object" || infos === null || Array.isArray(infos)) return infos;
  return Object.fromEntries(
    Object.entries(infos).filter(([name]) => name in row || !(name in group)),
  );
}

/** Writes the rows of one group back as a ScoredDataGroup object (-100 masks, 1.0 sentinels). */
export function writeAtroposGroup(rows: readonly Trajectory[]): Record<string, unknown> {
  const { group_summary: _summary, ...metadata } = rows[0]?.metadata ?? {};
  const flats = rows.map((t) => flattenSegments(t.segments));
  const out: Record<string, unknown> = {
    ...metadata,
    tokens: flats.map((f) => f.tokenIds),
    masks: flats.map((f) => f.tokenIds.map((id, k) => (f.lossMask[k] === 1 ? id : IGNORE))),
    scores: rows.map((t) => t.reward ?? null),
  };
  if (flats.some((f) => f.logprobs.some((v) => v !== null))) {
    out.inference_logprobs = flats.map((f) => f.logprobs.map((v) => v ?? SENTINEL_LOGPROB));
  }
  if (rows.every((t) => t.messages !== undefined)) out.messages = rows.map((t) => t.messages);
  if (rows.length > 0 && rows.every((t) => t.logprobLanes?.[REFERENCE_LANE])) {
    out.ref_logprobs = rows.map((t) => [...(t.logprobLanes?.[REFERENCE_LANE] ?? [])]);
  }
  const names = new Set(rows.flatMap((t) => Object.keys(t.logprobLanes ?? {})));
  if (out.ref_logprobs) names.delete(REFERENCE_LANE);
  if (names.size > 0) {
    const lanes: Record<string, ((number | null)[] | null)[]> = {};
    for (const name of names) {
      lanes[name] = rows.map((t) => {
        const v = t.logprobLanes?.[name];
        return v ? [...v] : null;
      });
    }
    out.logprob_lanes = lanes;
    const infos: Record<string, LaneInfoWire> = {};
    for (const t of rows) {
      for (const [name, info] of Object.entries(t.logprobLaneInfo ?? {})) {
        if (names.has(name)) infos[name] ??= laneInfoToWire(info);
      }
    }
    if (Object.keys(infos).length > 0) out.logprob_lane_info = infos;
  }
  return out;
}

export const atroposAdapter: FormatAdapter = {
  id: "atropos",
  tokenFields: {
    tokenIds: "tokens",
    lossMask: "masks",
    logprobs: "inference_logprobs",
    perRow: true,
  },
  detect: (v) => Array.isArray(v.tokens) && Array.isArray(v.masks) && Array.isArray(v.scores),
  read: readAtropos,
  readLanes: readAtroposLanes,
};
