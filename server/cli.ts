import { parseArgs } from "node:util";
import { driftCommand } from "./commands/drift";
import { SIM_USAGE, simCommand } from "./commands/sim";
import { validateCommand } from "./commands/validate";
import { viewCommand, viewUrl } from "./commands/view";
import { parseServerConfig } from "./config";
import { startServer } from "./index";

type Command = (args: string[]) => Promise<number>;

async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
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
    },
  });
  const {
    "max-episodes": maxEpisodes,
    "require-token": requireToken,
    "allowed-host": allowedHosts,
    "max-body-bytes": maxBodyBytes,
    "max-sse-clients": maxSseClients,
    "sglang-timeout-ms": sglangTimeoutMs,
    "sglang-attempts": sglangAttempts,
    token,
    ...rest
  } = values;
  // The environment keeps the token out of `ps` listings; the flag wins when both are set.
  const envToken = process.env.ROLLOUT_LENS_TOKEN;
  const config = parseServerConfig({
    ...rest,
    maxEpisodes,
    requireToken,
    allowedHosts,
    maxBodyBytes,
    maxSseClients,
    sglangTimeoutMs,
    sglangAttempts,
    token: token ?? (envToken === "" ? undefined : envToken),
    sglang: values.sglang?.split(",").filter((u) => u.length > 0),
    files: positionals,
  });
  await startServer(config);
  if (positionals.length > 0)
    console.log(`Files: ${viewUrl(config.host, config.port, positionals.length)}`);
  return new Promise<number>(() => {});
}

async function viewAndServe(args: string[]): Promise<number> {
  await viewCommand(args);
  return new Promise<number>(() => {});
}

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  sim: simCommand,
  view: viewAndServe,
  validate: validateCommand,
  drift: driftCommand,
};

const USAGE = `usage: rollout-lens <command> [options]
commands:
  serve [FILE...] [--port N] [--sglang URL[,URL]] [--tokenizer qwen3|PATH] [--data DIR]
        [--host ADDR] [--token T | env ROLLOUT_LENS_TOKEN] [--require-token] [--allowed-host NAME]
        [--max-body-bytes N] [--max-sse-clients N] [--sglang-timeout-ms MS] [--sglang-attempts N]
        (see docs/security.md)
  view FILE... [serve options] [--no-open]  serve the files and open the browser on them
  validate FILE... [--format auto|rollout-lens|slime|atropos|strands|verl] [--json]
  drift FILE... [--tokenizer qwen3|PATH] [--format auto|rollout-lens|slime|atropos|strands]
        [--mode roundtrip|template|text|all] [--json]
${SIM_USAGE}`;

/** Runs one CLI command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(USAGE);
    return 2;
  }
  try {
    return await command(rest);
  } catch (error) {
    console.error(
      `rollout-lens ${name}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 2;
  }
}
