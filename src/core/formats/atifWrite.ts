import { isRecord } from "../isRecord";
import { turnTexts } from "../trajectory/turnTexts";
import type { Segment, Trajectory } from "../trajectory/types";
import { ATIF_META, ATIF_WRITE_VERSION, type AtifPlacement, linksOf } from "./atif";

/*
 * ATIF written (docs/format.md "ATIF"): trajectories read from an ATIF document put back into it,
 * and any trajectory with token ids as a document of its own. The reader is atif.ts.
 */

function placementOf(t: Trajectory): AtifPlacement | undefined {
  const p = t.metadata[ATIF_META];
  return isRecord(p) && isRecord(p.document) && Array.isArray(p.steps) && Array.isArray(p.path)
    ? (p as unknown as AtifPlacement)
    : undefined;
}

function documentAt(
  root: Record<string, unknown>,
  path: readonly number[],
): Record<string, unknown> | undefined {
  let doc: Record<string, unknown> = root;
  for (const i of path) {
    const subs: unknown[] = Array.isArray(doc.subagent_trajectories)
      ? doc.subagent_trajectories
      : [];
    const next = subs[i];
    if (!isRecord(next)) return undefined;
    doc = next;
  }
  return doc;
}

function clone(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  // Structured data read from JSON: a JSON round trip is an exact deep copy.
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}

/**
 * Writes the trajectories read from one ATIF document back into that document, token arrays
 * refilled from their segments (`readAtif` inverse). Throws when a row was not read from ATIF.
 */
export function writeAtifDocument(rows: readonly Trajectory[]): Record<string, unknown> {
  const rootPlacement = rows.map(placementOf).find((p) => p?.path.length === 0);
  if (!rootPlacement) throw new Error("no row of this group was read from an ATIF document");
  const root = clone(rootPlacement.document);
  for (const t of rows) {
    const placement = placementOf(t);
    if (!placement) throw new Error(`${t.id} was not read from an ATIF document`);
    const doc = placement.path.length === 0 ? root : documentAt(root, placement.path);
    if (!doc || !Array.isArray(doc.steps))
      throw new Error(`${t.id}: no document at ${placement.path.join("/")}`);
    const steps = doc.steps;
    let before: number[] = [];
    let model = 0;
    for (const s of t.segments) {
      if (s.kind === "model") {
        const where = placement.steps[model];
        model += 1;
        if (!where) throw new Error(`${t.id}: model segment ${model} has no ATIF step`);
        const step = steps[where.index];
        if (!isRecord(step)) throw new Error(`${t.id}: step ${where.index} is missing`);
        const metrics = isRecord(step.metrics) ? { ...step.metrics } : {};
        if (where.prompt) metrics.prompt_token_ids = before.slice();
        metrics.completion_token_ids = s.tokenIds.slice();
        if (where.logprobs) metrics.logprobs = s.logprobs.slice();
        steps[where.index] = { ...step, metrics };
      }
      before = before.concat(s.tokenIds);
    }
  }
  return root;
}

/** Model-segment logprobs as ATIF writes them: omitted when none was recorded. */
function completionLogprobs(s: Segment): (number | null)[] | undefined {
  return s.logprobs.some((v) => v !== null) ? s.logprobs.slice() : undefined;
}

/**
 * Any trajectory with token ids as an ATIF v1.7 document: a user step with the prompt, then one
 * agent step per model segment carrying `prompt_token_ids` (every token before it),
 * `completion_token_ids` and `logprobs` in its metrics, its tool calls and their results. Tokens
 * after the last model segment go to `extra.rollout_lens.trailing_token_ids`. Logprobs recorded on
 * prompt or tool tokens have no place in ATIF and are not written.
 */
export function trajectoryToAtif(t: Trajectory): Record<string, unknown> {
  const placement = placementOf(t);
  const links = linksOf(t);
  const isWholeDocument =
    placement?.path.length === 0 &&
    !links?.nextPart &&
    !links?.previousPart &&
    links?.children.length === 0;
  if (isWholeDocument) {
    return writeAtifDocument([t]);
  }
  const steps: Record<string, unknown>[] = [];
  const texts = turnTexts(t);
  const prompt = t.segments[0]?.kind === "prompt" ? t.segments[0] : undefined;
  steps.push({ step_id: 1, source: "user", message: texts.firstUser ?? prompt?.text ?? "" });
  let turn = 0;
  let before: number[] = [];
  let trailing: number[] = [];
  for (const [i, s] of t.segments.entries()) {
    if (s.kind === "model") {
      const next = t.segments[i + 1];
      const results: Record<string, unknown>[] = (s.toolCalls ?? [])
        .filter((c) => c.result !== undefined)
        .map((c) => ({ source_call_id: c.id, content: c.result }));
      if (results.length === 0 && next?.kind === "tool" && next.text !== undefined) {
        results.push({ content: next.text });
      }
      const lp = completionLogprobs(s);
      const step: Record<string, unknown> = {
        step_id: steps.length + 1,
        source: "agent",
        message: texts.model[turn++] ?? "",
        metrics: {
          prompt_tokens: before.length,
          completion_tokens: s.tokenIds.length,
          prompt_token_ids: before.slice(),
          completion_token_ids: s.tokenIds.slice(),
          ...(lp ? { logprobs: lp } : {}),
        },
      };
      if (t.model !== undefined) step.model_name = t.model;
      if (s.toolCalls && s.toolCalls.length > 0) {
        step.tool_calls = s.toolCalls.map((c) => ({
          tool_call_id: c.id,
          function_name: c.name,
          arguments: { ...c.arguments },
        }));
      }
      if (results.length > 0) step.observation = { results };
      steps.push(step);
      trailing = [];
    } else if (i > 0) {
      for (const id of s.tokenIds) trailing.push(id);
    }
    before = before.concat(s.tokenIds);
  }
  const rollout: Record<string, unknown> = { id: t.id, format: t.format, status: t.status };
  if (t.reward !== undefined) rollout.reward = t.reward;
  if (t.tokenizer !== undefined) rollout.tokenizer = t.tokenizer;
  if (trailing.length > 0) rollout.trailing_token_ids = trailing;
  if (texts.missing !== undefined) rollout.message_text_missing = texts.missing;
  const agent: Record<string, unknown> = { name: "rollout-lens", version: "1" };
  if (t.model !== undefined) agent.model_name = t.model;
  return {
    schema_version: ATIF_WRITE_VERSION,
    session_id: t.id,
    trajectory_id: t.id,
    agent,
    steps,
    extra: { rollout_lens: rollout },
  };
}
