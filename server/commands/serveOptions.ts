import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseServerConfig, type ServerConfig } from "../config";

const DEMO_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "demo");

/** The bundled demo rollouts (`demo/*.jsonl`), listed when no file is named. */
export function demoRolloutFiles(): string[] {
  try {
    return readdirSync(DEMO_DIR)
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => join(DEMO_DIR, name));
  } catch {
    return [];
  }
}

/** The flags `serve` and `view` share, in `node:util` parseArgs form. */
export const SERVE_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  sglang: { type: "string" },
  tokenizer: { type: "string" },
  data: { type: "string" },
  tools: { type: "string", multiple: true },
  "max-episodes": { type: "string" },
  token: { type: "string" },
  "require-token": { type: "boolean" },
  "allowed-host": { type: "string", multiple: true },
  "max-body-bytes": { type: "string" },
  "max-sse-clients": { type: "string" },
  "sglang-timeout-ms": { type: "string" },
  "sglang-attempts": { type: "string" },
  "no-demo": { type: "boolean" },
} as const;

/** What parseArgs gives for SERVE_OPTIONS. */
export interface ServeFlagValues {
  readonly host?: string;
  readonly port?: string;
  readonly sglang?: string;
  readonly tokenizer?: string;
  readonly data?: string;
  readonly tools?: string[];
  readonly "max-episodes"?: string;
  readonly token?: string;
  readonly "require-token"?: boolean;
  readonly "allowed-host"?: string[];
  readonly "max-body-bytes"?: string;
  readonly "max-sse-clients"?: string;
  readonly "sglang-timeout-ms"?: string;
  readonly "sglang-attempts"?: string;
  readonly "no-demo"?: boolean;
}

/**
 * The validated server config from parsed flags and the files named on the command line; with no
 * file named (and no `--no-demo`), the bundled demo rollouts are listed.
 */
export function serveConfigFrom(values: ServeFlagValues, files: readonly string[]): ServerConfig {
  // The environment keeps the token out of `ps` listings; the flag wins when both are set.
  const envToken = process.env.ROLLOUT_LENS_TOKEN;
  return parseServerConfig({
    host: values.host,
    port: values.port,
    tokenizer: values.tokenizer,
    data: values.data,
    tools: values.tools,
    maxEpisodes: values["max-episodes"],
    requireToken: values["require-token"],
    allowedHosts: values["allowed-host"],
    maxBodyBytes: values["max-body-bytes"],
    maxSseClients: values["max-sse-clients"],
    sglangTimeoutMs: values["sglang-timeout-ms"],
    sglangAttempts: values["sglang-attempts"],
    token: values.token ?? (envToken === "" ? undefined : envToken),
    sglang: values.sglang?.split(",").filter((u) => u.length > 0),
    files: files.length > 0 || values["no-demo"] === true ? files : demoRolloutFiles(),
  });
}
