import { type BisectBundle, BUNDLE_FORMAT, type KnobResult } from "../../src/core/bisect/bundle";
import {
  type KnobName,
  type KnobPlan,
  planKnobs,
  samplingFactsOf,
} from "../../src/core/bisect/knobs";
import { SglangError } from "../sglang/errors";
import { type BisectClient, scoreSetting } from "./scoreSetting";

/** The upstreams of a bisect: `a` always, `b` for the upstream knob. */
export interface BisectUpstreams {
  readonly a: { readonly url: string; readonly client: BisectClient };
  readonly b?: { readonly url: string; readonly client: BisectClient };
}

/** What a bisect runs on: the fixed ids of one trajectory and how to turn the knobs. */
export interface BisectInput {
  readonly ids: readonly number[];
  readonly mask: readonly (0 | 1)[];
  /** The recorded sampled logprobs, one per id (null where none). */
  readonly sampled: readonly (number | null)[];
  readonly samplingParams: Readonly<Record<string, unknown>>;
  readonly source: BisectBundle["source"];
  readonly knobs: readonly KnobName[];
  /** `auto`: the sampled lane when a trained token has one, else the reference rescore. */
  readonly baseline: "sampled" | "reference" | "auto";
  readonly options: BisectBundle["options"];
  readonly tokenizer: BisectBundle["tokenizer"];
}

type Options = BisectBundle["options"];

function seedOf(params: Readonly<Record<string, unknown>>): number | undefined {
  const seed = params.sampling_seed;
  return typeof seed === "number" && Number.isInteger(seed) ? seed : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof SglangError || error instanceof Error ? error.message : String(error);
}

/** Runs one planned knob; a failure makes it unchecked with the reason, never "no difference". */
async function runPlan(
  plan: KnobPlan,
  bundleish: Pick<BisectBundle, "ids" | "mask" | "sampling_params" | "options">,
  up: BisectUpstreams,
  signal?: AbortSignal,
): Promise<KnobResult> {
  if (plan.status === "unchecked") return plan;
  const target = up[plan.setting.upstream];
  if (target === undefined) {
    return {
      knob: plan.knob,
      status: "unchecked",
      reason:
        "no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B",
      change: plan.change,
      setting: plan.setting,
    };
  }
  try {
    const scored = await scoreSetting(
      target.client,
      {
        ids: bundleish.ids,
        mask: bundleish.mask,
        samplingSeed: seedOf(bundleish.sampling_params),
        topLogprobs: bundleish.options.top_logprobs,
        decodeMaxTokens: bundleish.options.decode_max_tokens,
      },
      plan.setting,
      signal,
    );
    return {
      knob: plan.knob,
      status: "ran",
      change: plan.change,
      setting: plan.setting,
      ...scored,
    };
  } catch (error) {
    if (signal?.aborted) throw error;
    return {
      knob: plan.knob,
      status: "unchecked",
      reason: `the rescore failed: ${messageOf(error)}`,
      change: plan.change,
      setting: plan.setting,
    };
  }
}

async function serverFacts(url: string, client: BisectClient, signal?: AbortSignal) {
  const [model, server] = await Promise.all([
    client.modelInfo({ signal }).catch(() => null),
    client.serverInfo({ signal }).catch(() => null),
  ]);
  return { url, model_info: model, server_info: server };
}

function hasTrainedValue(lane: readonly (number | null)[], mask: readonly number[]): boolean {
  return mask.some((m, k) => m === 1 && typeof lane[k] === "number");
}

function baselineOf(
  wanted: BisectInput["baseline"],
  sampled: readonly (number | null)[],
  mask: readonly number[],
  knobs: readonly KnobResult[],
): BisectBundle["baseline"] {
  const useSampled = wanted === "sampled" || (wanted === "auto" && hasTrainedValue(sampled, mask));
  if (useSampled) {
    if (!hasTrainedValue(sampled, mask))
      throw new Error(
        "the row records no sampled logprob on a trained token: use the reference as baseline",
      );
    return { name: "sampled", lane: [...sampled] };
  }
  const ref = knobs[0];
  if (ref?.status !== "ran")
    throw new Error(
      `the reference rescore did not run (${ref?.status === "unchecked" ? ref.reason : "none"}) and the row has no sampled logprobs to compare with`,
    );
  return { name: "reference", lane: [...ref.lane] };
}

async function runPlans(
  plans: readonly KnobPlan[],
  shape: Pick<BisectBundle, "ids" | "mask" | "sampling_params" | "options">,
  up: BisectUpstreams,
  signal?: AbortSignal,
): Promise<KnobResult[]> {
  const results: KnobResult[] = [];
  // One at a time: knobs must not be each other's co-tenants.
  for (const plan of plans) results.push(await runPlan(plan, shape, up, signal));
  return results;
}

/** Rescores the fixed ids once per knob and returns the repro bundle (docs/bisect.md). */
export async function runBisect(
  input: BisectInput,
  up: BisectUpstreams,
  signal?: AbortSignal,
): Promise<BisectBundle> {
  const options: Options = input.options;
  const plans = planKnobs(input.knobs, samplingFactsOf(input.samplingParams), {
    batchSize: options.batch_size,
    hasUpstreamB: up.b !== undefined,
  });
  const shape = {
    ids: [...input.ids],
    mask: [...input.mask],
    sampling_params: { ...input.samplingParams },
    options,
  };
  const knobs = await runPlans(plans, shape, up, signal);
  return {
    format: BUNDLE_FORMAT,
    version: 1,
    created_at: new Date().toISOString(),
    source: input.source,
    ...shape,
    baseline: baselineOf(input.baseline, input.sampled, input.mask, knobs),
    knobs,
    server: await serverFacts(up.a.url, up.a.client, signal),
    ...(up.b ? { server_b: await serverFacts(up.b.url, up.b.client, signal) } : {}),
    tokenizer: input.tokenizer,
  };
}

/** The plans a bundle recorded: each knob's setting again, or its recorded reason. */
function plansOf(bundle: BisectBundle): KnobPlan[] {
  return bundle.knobs.map((k): KnobPlan => {
    if (k.status === "ran")
      return { knob: k.knob, status: "planned", change: k.change, setting: k.setting };
    if (k.setting !== undefined && k.change !== undefined)
      return { knob: k.knob, status: "planned", change: k.change, setting: k.setting };
    return { knob: k.knob, status: "unchecked", reason: k.reason };
  });
}

/** Reruns a bundle's knobs with their recorded settings against these upstreams. */
export async function rerunBundle(
  bundle: BisectBundle,
  up: BisectUpstreams,
  signal?: AbortSignal,
): Promise<BisectBundle> {
  const knobs = await runPlans(plansOf(bundle), bundle, up, signal);
  const baseline =
    bundle.baseline.name === "sampled"
      ? bundle.baseline
      : baselineOf("reference", [], bundle.mask, knobs);
  // The recorded server_b describes the recorded run; the rerun names its own, or none.
  const { server_b: _recordedB, ...recorded } = bundle;
  return {
    ...recorded,
    created_at: new Date().toISOString(),
    baseline,
    knobs,
    server: await serverFacts(up.a.url, up.a.client, signal),
    ...(up.b ? { server_b: await serverFacts(up.b.url, up.b.client, signal) } : {}),
  };
}
