import { parseArgs } from "node:util";
import { POLICY_NAMES, parseSimOptions } from "../sim/options";
import { startSim } from "../sim/start";

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`--${flag}: expected a number, got "${value}"`);
  return parsed;
}

/** Usage line for `rollout-lens sim`. */
export const SIM_USAGE = `  sim [--port 30000] [--host H] [--policy ${POLICY_NAMES.join("|")}] [--tokenizer qwen3|PATH]
      [--context-length N] [--seed N] [--latency-ms N] [--token-latency-ms N] [--delta-stream]
      [--fault-503 R] [--fault-500 R] [--fault-drop R] [--fault-stall R] [--fault-malformed R]
      [--fault-abort R] [--fault-seed N]`;

/** `rollout-lens sim`: serves the SGLang simulator until interrupted. */
export async function simCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      policy: { type: "string" },
      tokenizer: { type: "string" },
      "context-length": { type: "string" },
      seed: { type: "string" },
      "latency-ms": { type: "string" },
      "token-latency-ms": { type: "string" },
      "delta-stream": { type: "boolean" },
      "fault-503": { type: "string" },
      "fault-500": { type: "string" },
      "fault-drop": { type: "string" },
      "fault-stall": { type: "string" },
      "fault-malformed": { type: "string" },
      "fault-abort": { type: "string" },
      "fault-seed": { type: "string" },
    },
  });
  // Flags are checked by the same schema as programmatic options, so errors name the field.
  const options = parseSimOptions({
    policy: values.policy,
    tokenizer: values.tokenizer,
    contextLength: number("context-length", values["context-length"]),
    seed: number("seed", values.seed),
    requestLatencyMs: number("latency-ms", values["latency-ms"]),
    tokenLatencyMs: number("token-latency-ms", values["token-latency-ms"]),
    streamMode: values["delta-stream"] ? "delta" : "cumulative",
    faults: {
      rate503: number("fault-503", values["fault-503"]),
      rate500: number("fault-500", values["fault-500"]),
      rateDrop: number("fault-drop", values["fault-drop"]),
      rateStall: number("fault-stall", values["fault-stall"]),
      rateMalformed: number("fault-malformed", values["fault-malformed"]),
      rateAbortBeforePrefill: number("fault-abort", values["fault-abort"]),
      seed: number("fault-seed", values["fault-seed"]),
    },
  });
  const running = await startSim(
    { port: number("port", values.port) ?? 30000, host: values.host ?? "127.0.0.1" },
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
