import { parseServerConfig, type ServerConfig } from "../config";

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
}

/** The validated server config from parsed flags and the files named on the command line. */
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
    files,
  });
}
