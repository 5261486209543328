import { parseArgs } from "node:util";
import { driftCommand } from "./commands/drift";
import { validateCommand } from "./commands/validate";
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
    },
  });
  const config = parseServerConfig({
    ...values,
    sglang: values.sglang?.split(",").filter((u) => u.length > 0),
    files: positionals,
  });
  await startServer(config);
  return new Promise<number>(() => {});
}

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  validate: validateCommand,
  drift: driftCommand,
};

const USAGE = `usage: rollout-lens <command> [options]
commands:
  serve [FILE...] [--port N] [--sglang URL[,URL]] [--tokenizer qwen3|PATH] [--data DIR]
  validate FILE... [--format auto|rollout-lens|slime|atropos|strands|verl] [--json]
  drift FILE... [--tokenizer qwen3|PATH] [--format auto|rollout-lens|slime|atropos|strands]
        [--mode roundtrip|template|text|all] [--json]`;

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
