import { Command, CommanderError } from "commander";
import { type BisectFlags, bisectSpec } from "./commands/bisectSpec";
import type {
  BranchFlags,
  DriftFlags,
  GroupsFlags,
  McpFlags,
  MergeReportsFlags,
  MismatchFlags,
  ParsedArgs,
  RescoreFlags,
  ServeFlags,
  SimFlags,
  ValidateFlags,
  ViewFlags,
} from "./commands/commandFlags";
import { type CommandIo, processIo } from "./commands/commandIo";
import {
  branchSpec,
  driftSpec,
  exitCodeOfCommanderError,
  groupsSpec,
  mcpSpec,
  mergeReportsSpec,
  mismatchSpec,
  rescoreSpec,
  serveSpec,
  simSpec,
  USAGE_EXIT_CODE,
  validateSpec,
  viewSpec,
} from "./commands/spec";
import { packageVersion as version } from "./paths";

// Only commander and the command definitions load up front: each command's module (the server,
// tokenizers, hono...) is imported when that command runs, so `--help` starts fast.

function program(io: CommandIo, setExitCode: (code: number) => void): Command {
  /** The action of a command: its flags and files, handed to the lazily imported runner. */
  function action<Flags>(run: (parsed: ParsedArgs<Flags>) => Promise<number>) {
    return async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      setExitCode(await run({ values: command.opts() as Flags, positionals: command.args }));
    };
  }
  const output = {
    writeOut: (text: string) => io.out(text.trimEnd()),
    writeErr: (text: string) => io.err(text.trimEnd()),
  };
  const root = new Command("rollout-lens")
    .description(
      "inspect agentic-RL rollouts: exact tokens, loss masks, logprobs, retokenization drift",
    )
    .version(version(), "-V, --version")
    .exitOverride()
    .showHelpAfterError()
    .configureOutput(output)
    .addHelpText("after", "\nRun `rollout-lens COMMAND --help` for a command's options.");
  root.addCommand(
    serveSpec().action(
      action<ServeFlags>(async (parsed) => (await import("./commands/serve")).runServe(parsed)),
    ),
  );
  root.addCommand(
    viewSpec().action(
      action<ViewFlags>(async (parsed) => {
        await (await import("./commands/view")).runView(parsed);
        // The server keeps running until interrupted.
        return new Promise<number>(() => {});
      }),
    ),
  );
  root.addCommand(
    validateSpec().action(
      action<ValidateFlags>(async (parsed) =>
        (await import("./commands/validate")).runValidate(parsed, io),
      ),
    ),
  );
  root.addCommand(
    driftSpec().action(
      action<DriftFlags>(async (parsed) => (await import("./commands/drift")).runDrift(parsed, io)),
    ),
  );
  root.addCommand(
    rescoreSpec().action(
      action<RescoreFlags>(async (parsed) =>
        (await import("./commands/rescore")).runRescore(parsed, io),
      ),
    ),
  );
  root.addCommand(
    bisectSpec().action(
      action<BisectFlags>(async (parsed) =>
        (await import("./commands/bisect")).runBisectCommand(parsed, io),
      ),
    ),
  );
  root.addCommand(
    branchSpec().action(
      action<BranchFlags>(async (parsed) =>
        (await import("./commands/branch")).runBranchCommand(parsed, io),
      ),
    ),
  );
  root.addCommand(
    mismatchSpec().action(
      action<MismatchFlags>(async (parsed) =>
        (await import("./commands/mismatch")).runMismatch(parsed, io),
      ),
    ),
  );
  root.addCommand(
    groupsSpec().action(
      action<GroupsFlags>(async (parsed) =>
        (await import("./commands/groups")).runGroups(parsed, io),
      ),
    ),
  );
  root.addCommand(
    mergeReportsSpec().action(
      action<MergeReportsFlags>(async (parsed) =>
        (await import("./commands/mergeReports")).runMergeReports(parsed, io),
      ),
    ),
  );
  root.addCommand(
    mcpSpec().action(
      action<McpFlags>(async (parsed) => {
        await (await import("./commands/mcp")).runMcp(parsed, version());
        // The server answers until its client closes stdin.
        return new Promise<number>(() => {});
      }),
    ),
  );
  root.addCommand(
    simSpec().action(
      action<SimFlags>(async (parsed) => (await import("./commands/sim")).runSim(parsed)),
    ),
  );
  for (const command of root.commands) command.configureOutput(output);
  return root;
}

/**
 * Ends the process quietly when the reader of `stream` goes away (`rollout-lens mismatch F | head
 * -2`): an EPIPE is the reader's choice, not an error, as for any Unix filter. Other errors throw.
 */
export function exitOnClosedPipe(
  stream: NodeJS.WritableStream,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  stream.on("error", (error: unknown) => {
    if (error instanceof Error && "code" in error && error.code === "EPIPE") exit(0);
    else throw error;
  });
}

/** Runs one CLI command; resolves to the process exit code. */
export async function main(argv: string[], io: CommandIo = processIo): Promise<number> {
  if (io === processIo) exitOnClosedPipe(process.stdout);
  let exitCode = 0;
  const root = program(io, (code) => {
    exitCode = code;
  });
  try {
    await root.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeOfCommanderError(error);
    const name = argv[0] ?? "";
    io.err(`rollout-lens ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return USAGE_EXIT_CODE;
  }
  return exitCode;
}
