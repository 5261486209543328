/** Output sink, so tests can run a command in-process and read what it printed. */
export interface CommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /**
   * Writes `text` to the output as it is, no line break added: streaming output (`drift --json`)
   * writes its report piece by piece with it. Without it, the pieces are joined and given to `out`.
   */
  readonly write?: (text: string) => void;
}

/** The process's own stdout and stderr: every command's default sink. */
export const processIo: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  write: (text) => process.stdout.write(text),
};
