import { readdir, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Outputs never written over inputs (docs/format.md#outputs-and-inputs): an `--out` that is an
 * input under another name (a symlink, a hard link, `./x` for `x`) is refused, compared by device
 * and inode, not by path; a temporary file is removed on SIGINT/SIGTERM, and one a killed run
 * left behind is removed by the next run once its process is gone.
 */

/** Device and inode of the file a path leads to (links followed); undefined when there is none. */
async function identity(path: string): Promise<{ dev: number; ino: number } | undefined> {
  try {
    const s = await stat(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

/** Why `out` must not be written (it is one of `inputs`), or undefined when it is a new file. */
export async function outputOverInput(
  out: string,
  inputs: readonly string[],
): Promise<string | undefined> {
  const target = await identity(out);
  if (target === undefined) return undefined;
  for (const input of inputs) {
    const source = await identity(input);
    if (source && source.dev === target.dev && source.ino === target.ino) {
      const how = out === input ? "is" : "leads (through a link or another name) to";
      return `${out} ${how} the input ${input}: an output is never written over an input; choose another --out`;
    }
  }
  return undefined;
}

const TEMP_MARK = ".rescoring-";

/** The temporary file a run of process `pid` writes `out` through. */
export function temporaryPathOf(out: string, pid = process.pid): string {
  return `${out}${TEMP_MARK}${pid}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the temporary files of `out` left by runs whose process is gone (a kill -9); a file of a
 * live process (another run writing the same `out`) is left alone. Returns the removed paths.
 */
export async function removeStaleTemporaries(out: string): Promise<string[]> {
  const dir = dirname(out);
  const prefix = `${basename(out)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    await rm(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  return removed;
}

/**
 * Removes `path` if the process is interrupted (SIGINT, SIGTERM) before `release` is called, then
 * exits as the signal would (130, 143). Returns `release`.
 */
export function removeOnSignal(
  path: string,
  exit: (code: number) => void = process.exit,
): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  const release = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    handlers.clear();
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    const handler = () => {
      release();
      void rm(path, { force: true }).finally(() => exit(code));
    };
    handlers.set(signal, handler);
    process.once(signal, handler);
  }
  return release;
}
