import type { Tokenizer } from "../../src/core/tokenizer/types";
import { viewPrompt } from "./chatPrompt";
import { splitNonCanonically } from "./nonCanonical";
import type { GenerateItem, SamplingSettings } from "./normalizeRequest";
import { planReply, type ReplyPlan } from "./policies";

/** `meta_info.finish_reason` in SGLang's shapes (docs/sglang.md). */
export type FinishReason =
  | { readonly type: "stop"; readonly matched: number | string }
  | { readonly type: "length"; readonly length: number }
  | {
      readonly type: "abort";
      readonly message: string;
      readonly status_code: number | null;
      readonly err_type: string | null;
    };

/** What the scripted model would produce for one item if nothing interrupted it. */
export interface Completion {
  readonly outputIds: readonly number[];
  readonly finish: FinishReason;
}

function* candidateIds(tokenizer: Tokenizer, plan: ReplyPlan, eosId: number): Generator<number> {
  if (plan.kind === "endless") {
    yield* tokenizer.encode(plan.text);
    const repeat = tokenizer.encode(plan.repeat);
    if (repeat.length === 0) return;
    for (;;) yield* repeat;
  }
  const canonical = tokenizer.encode(plan.text);
  const ids = plan.isNonCanonical ? splitNonCanonically(tokenizer, canonical) : canonical;
  // A model told to ignore EOS keeps going; the script simply says its turn again.
  for (;;) yield* [...ids, eosId];
}

/** The id of the plan's own stop token (one added token of the family), if it names one. */
function stopIdOf(tokenizer: Tokenizer, plan: ReplyPlan): number | undefined {
  if (plan.kind !== "turn" || plan.stop === undefined) return undefined;
  const ids = tokenizer.encode(plan.stop);
  const [id] = ids;
  if (ids.length !== 1 || id === undefined) {
    throw new Error(`simulator: the stop token ${plan.stop} is not one token of ${tokenizer.id}`);
  }
  return id;
}

/**
 * Runs the decode loop with SGLang's stop rules in SGLang's order: `max_new_tokens` first, then
 * EOS / `stop_token_ids`, then stop strings matched on the decoded tail. Output ids keep the
 * token that triggered the stop.
 */
export function completeItem(tokenizer: Tokenizer, item: GenerateItem): Completion {
  const { sampling } = item;
  const plan = planReply(
    item.policy,
    viewPrompt(tokenizer.decode(item.promptIds), tokenizer.family),
  );
  const eosId = stopIdOf(tokenizer, plan) ?? tokenizer.eosTokenIds[0] ?? 0;
  const stopIds = new Set([
    ...sampling.stopTokenIds,
    ...(sampling.isIgnoringEos ? [] : tokenizer.eosTokenIds),
  ]);
  const tailTokens = Math.max(0, ...sampling.stop.map((s) => s.length)) + 1;
  const out: number[] = [];
  const max = sampling.maxNewTokens;
  if (max === 0) return { outputIds: out, finish: { type: "length", length: 0 } };
  for (const id of candidateIds(tokenizer, plan, eosId)) {
    out.push(id);
    if (out.length >= max) return { outputIds: out, finish: { type: "length", length: max } };
    if (stopIds.has(id)) return { outputIds: out, finish: { type: "stop", matched: id } };
    if (sampling.stop.length > 0) {
      const tail = tokenizer.decode(out.slice(-tailTokens));
      const matched = sampling.stop.find((s) => s.length > 0 && tail.includes(s));
      if (matched !== undefined) return { outputIds: out, finish: { type: "stop", matched } };
    }
  }
  return { outputIds: out, finish: { type: "length", length: out.length } };
}

/**
 * `text` for `ids` as SGLang's detokenizer builds it: a matched stop token is dropped and a matched
 * stop string (and anything after it) cut unless `no_stop_trim`; special tokens vanish when
 * `skip_special_tokens`. Unfinished (`finish` null) text holds back a trailing partial UTF-8 char.
 */
export function outputText(
  tokenizer: Tokenizer,
  ids: readonly number[],
  finish: FinishReason | null,
  sampling: SamplingSettings,
): string {
  let kept = ids;
  if (finish?.type === "stop" && typeof finish.matched === "number" && !sampling.isKeepingStop) {
    kept = ids.slice(0, -1);
  }
  if (sampling.isSkippingSpecialTokens) kept = kept.filter((id) => !tokenizer.isSpecial(id));
  let text = tokenizer.decode(kept);
  if (finish?.type === "stop" && typeof finish.matched === "string") {
    const at = text.indexOf(finish.matched);
    if (at >= 0) text = text.slice(0, sampling.isKeepingStop ? at + finish.matched.length : at);
  }
  if (finish === null && text.endsWith("\uFFFD")) text = text.replace(/\uFFFD+$/, "");
  return text;
}
