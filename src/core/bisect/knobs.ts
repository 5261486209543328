/**
 * The knobs the bisect lab turns (docs/bisect.md): every rescore runs the reference setting with
 * at most one field changed, so a row of the table says what that one field does to the lane.
 */

/** A knob of the table; `reference` is the rescore every knob changes one thing of. */
export type KnobName = "temperature" | "top_p" | "batch" | "decode" | "upstream";
export type RowName = "reference" | KnobName;

export const KNOB_NAMES: readonly KnobName[] = [
  "temperature",
  "top_p",
  "batch",
  "decode",
  "upstream",
];

/** How one rescore of the fixed ids is run. */
export interface RescoreSetting {
  /**
   * The lane's temperature. The server always scores at T = 1 (`temperature: 1` is sent: SGLang's
   * prompt scoring ignores the request's temperature, docs/bisect.md#the-knobs); another T is
   * log softmax(z/T) over the top-k alternatives of that scoring (`laneAt`).
   */
  readonly temperature: number;
  /** Renormalise each logprob over the kept set of top_p / top_k (top_k -1: none); absent: full support. */
  readonly truncation?: { readonly top_p: number; readonly top_k: number };
  /** Other sequences scored in the same batch request (0: alone). */
  readonly cotenants: number;
  /** `prefill`: one call scores every id; `decode`: one call per trained token, on the cached prefix. */
  readonly mode: "prefill" | "decode";
  /** The upstream asked: `a` (--sglang) or `b` (--sglang-b). */
  readonly upstream: "a" | "b";
}

/** What a row's sampling params say about the knobs (undefined: not recorded). */
export interface SamplingFacts {
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
}

/** A knob about to run, or why it cannot. */
export type KnobPlan =
  | {
      readonly knob: RowName;
      readonly status: "planned";
      readonly change: string;
      readonly setting: RescoreSetting;
    }
  | { readonly knob: RowName; readonly status: "unchecked"; readonly reason: string };

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The temperature, top_p and top_k a trajectory's sampling params record. */
export function samplingFactsOf(
  params: Readonly<Record<string, unknown>> | undefined,
): SamplingFacts {
  return {
    temperature: finite(params?.temperature),
    topP: finite(params?.top_p),
    topK: finite(params?.top_k),
  };
}

/** The reference rescore, the trainer's view: T = 1, full support, alone, prefill, on a. */
export function referenceSetting(): RescoreSetting {
  return { temperature: 1, cotenants: 0, mode: "prefill", upstream: "a" };
}

function truncates(facts: SamplingFacts): boolean {
  return (
    (facts.topP !== undefined && facts.topP < 1) || (facts.topK !== undefined && facts.topK > 0)
  );
}

/** Options of the plan: batch size (the target plus co-tenants) and whether a second upstream is given. */
export interface PlanOptions {
  readonly batchSize: number;
  readonly hasUpstreamB: boolean;
}

function planOne(
  knob: KnobName,
  facts: SamplingFacts,
  ref: RescoreSetting,
  o: PlanOptions,
): KnobPlan {
  const planned = (change: string, setting: RescoreSetting): KnobPlan => ({
    knob,
    status: "planned",
    change,
    setting,
  });
  switch (knob) {
    case "temperature":
      if (facts.temperature === undefined)
        return { knob, status: "unchecked", reason: "the row records no sampling temperature" };
      if (facts.temperature === 1)
        return { knob, status: "unchecked", reason: "sampled at T = 1: nothing to vary" };
      // SGLang samples greedily below 1e-6 and reports those logprobs at T = 1.
      if (facts.temperature < 1e-6)
        return {
          knob,
          status: "unchecked",
          reason: "greedy sampling (T = 0): logprobs are reported at T = 1",
        };
      return planned(
        `scaled to the sampling T = ${facts.temperature} from the top-k (reference T = 1)`,
        {
          ...ref,
          temperature: facts.temperature,
        },
      );
    case "top_p": {
      if (!truncates(facts))
        return {
          knob,
          status: "unchecked",
          reason: "the row's sampling params truncate nothing (no top_p < 1, no top_k > 0)",
        };
      const truncation = { top_p: facts.topP ?? 1, top_k: facts.topK ?? -1 };
      return planned(
        `renormalised over the kept set (top_p ${truncation.top_p}, top_k ${truncation.top_k})`,
        { ...ref, truncation },
      );
    }
    case "batch":
      return planned(`inside a batch of ${o.batchSize} (${o.batchSize - 1} co-tenants)`, {
        ...ref,
        cotenants: o.batchSize - 1,
      });
    case "decode":
      return planned("token by token on the cached prefix", { ...ref, mode: "decode" });
    case "upstream":
      if (!o.hasUpstreamB)
        return {
          knob,
          status: "unchecked",
          reason:
            "no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B",
        };
      return planned("on upstream b", { ...ref, upstream: "b" });
    default:
      return assertNever(knob);
  }
}

function assertNever(value: never): never {
  throw new Error(`unknown knob ${String(value)}`);
}

/** The reference first, then each asked knob: its one change, or why it is unchecked. */
export function planKnobs(
  knobs: readonly KnobName[],
  facts: SamplingFacts,
  options: PlanOptions,
): KnobPlan[] {
  const ref = referenceSetting();
  const reference: KnobPlan = {
    knob: "reference",
    status: "planned",
    change: "prefill, alone, T = 1, full support, upstream a",
    setting: ref,
  };
  return [reference, ...knobs.map((k) => planOne(k, facts, ref, options))];
}

/** `temperature,top_p` → the knobs, or the first unknown name. */
export function parseKnobList(
  text: string,
): { ok: true; knobs: KnobName[] } | { ok: false; error: string } {
  const knobs: KnobName[] = [];
  for (const raw of text.split(",")) {
    const name = raw.trim();
    const known = KNOB_NAMES.find((k) => k === name);
    if (known === undefined)
      return { ok: false, error: `unknown knob "${name}" (knobs: ${KNOB_NAMES.join(", ")})` };
    if (!knobs.includes(known)) knobs.push(known);
  }
  return { ok: true, knobs };
}

/**
 * The co-tenants of the batch knob: `count` sequences as long as `ids`, each `ids` rotated by a
 * different offset, so they share the target's vocabulary and length but not its prefix.
 */
export function cotenantsOf(ids: readonly number[], count: number): number[][] {
  const n = ids.length;
  return Array.from({ length: count }, (_, i) => {
    const shift = 1 + (Math.floor(((i + 1) * n) / (count + 1)) % Math.max(1, n - 1));
    return [...ids.slice(shift), ...ids.slice(0, shift)];
  });
}
