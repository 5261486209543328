import { parseSimOptions } from "../sim/options";
import { startSim } from "../sim/start";
import type { ParsedArgs, SimFlags } from "./commandFlags";

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`--${flag}: expected a number, got "${value}"`);
  return parsed;
}

/** `--routed-experts L,E,K` as the options' routing shape. */
function routingShape(value: string | undefined) {
  if (value === undefined) return undefined;
  const parts = value.split(",").map((part) => Number(part));
  const [layers, experts, topK] = parts;
  if (parts.length !== 3 || !parts.every(Number.isInteger)) {
    throw new Error(`--routed-experts: expected LAYERS,EXPERTS,TOPK (e.g. 4,16,2), got "${value}"`);
  }
  return { layers, experts, topK };
}

/** `rollout-lens sim` (flags from `simSpec`): serves the SGLang simulator until interrupted. */
export async function runSim({ values }: ParsedArgs<SimFlags>): Promise<number> {
  // Flags are checked by the same schema as programmatic options, so errors name the field.
  const options = parseSimOptions({
    policy: values.policy,
    tokenizer: values.tokenizer,
    // Without --tokenizer every installed family is served, each request by its ids' family.
    isTokenizerPerRequest: values.tokenizer === undefined,
    contextLength: number("context-length", values.contextLength),
    seed: number("seed", values.seed),
    logprobNoise: number("logprob-noise", values.logprobNoise),
    logprobDriftAfterTokens: number("logprob-drift-after-tokens", values.logprobDriftAfterTokens),
    logitModel: values.logitModel ?? false,
    renormalizeKept: values.renormalizeKept ?? false,
    batchNoise: number("batch-noise", values.batchNoise),
    routedExperts: routingShape(values.routedExperts),
    requestLatencyMs: number("latency-ms", values.latencyMs),
    tokenLatencyMs: number("token-latency-ms", values.tokenLatencyMs),
    streamMode: values.deltaStream ? "delta" : "cumulative",
    faults: {
      rate503: number("fault-503", values.fault503),
      rate500: number("fault-500", values.fault500),
      rateDrop: number("fault-drop", values.faultDrop),
      rateStall: number("fault-stall", values.faultStall),
      rateMalformed: number("fault-malformed", values.faultMalformed),
      rateAbortBeforePrefill: number("fault-abort", values.faultAbort),
      seed: number("fault-seed", values.faultSeed),
    },
  });
  const running = await startSim(
    { port: number("port", values.port) ?? 30000, host: values.host },
    options,
  );
  console.log(
    `Rollout Lens SGLang SIMULATOR (policy ${running.sim.options.policy}, not a model) on ${running.url}`,
  );
  const shutdown = () => void running.close().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return new Promise<number>(() => {});
}
