import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseServerConfig, type ServerConfig } from "../config";
import { PACKAGE_ROOT } from "../paths";
import type { ServeFlags } from "./commandFlags";

const DEMO_DIR = join(PACKAGE_ROOT, "demo");

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

/**
 * The validated server config from parsed flags (`serveSpec`) and the files named on the command
 * line; with no file named (and no `--no-demo`), the bundled demo rollouts are listed.
 */
export function serveConfigFrom(values: ServeFlags, files: readonly string[]): ServerConfig {
  // The environment keeps the token out of `ps` listings; the flag wins when both are set.
  const envToken = process.env.ROLLOUT_LENS_TOKEN;
  return parseServerConfig({
    host: values.host,
    port: values.port,
    tokenizer: values.tokenizer,
    data: values.data,
    tools: values.tools,
    maxEpisodes: values.maxEpisodes,
    requireToken: values.requireToken,
    allowedHosts: values.allowedHost,
    maxBodyBytes: values.maxBodyBytes,
    maxSseClients: values.maxSseClients,
    maxRangeReads: values.maxRangeReads,
    sglangTimeoutMs: values.sglangTimeoutMs,
    sglangAttempts: values.sglangAttempts,
    token: values.token ?? (envToken === "" ? undefined : envToken),
    sglang: values.sglang?.split(",").filter((u) => u.length > 0),
    files: files.length > 0 || values.demo === false ? files : demoRolloutFiles(),
    map: values.map,
  });
}
