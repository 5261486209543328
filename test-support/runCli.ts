import { main } from "../server/cli";
import type { CommandIo } from "../server/commands/commandIo";

/** What a `rollout-lens` command run in process printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** A command's entry as the CLI calls it (`main`, `driftCommand`, `validateCommand`, ...). */
export type CommandEntry = (args: string[], io: CommandIo) => Promise<number>;

/** Runs `command ARGS` in this process, stdout and stderr caught line by line. */
export async function runCommand(command: CommandEntry, args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await command(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Runs `rollout-lens ARGS` in this process (`main`), stdout and stderr caught line by line. */
export function runCli(args: string[]): Promise<CliRun> {
  return runCommand(main, args);
}
