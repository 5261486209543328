import { open, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { ServerFile } from "../../src/core/files/filesWire";

/** A file the server may serve: its public id and its absolute path (never sent to the browser). */
export interface RegisteredFile {
  readonly id: string;
  readonly name: string;
  readonly origin: ServerFile["origin"];
  readonly path: string;
}

/**
 * The only files `/api/files` can reach: the CLI files (`f1`, `f2`, ...) and the live-episode store
 * (`episodes`). Ids are looked up, never turned into paths, so no request can name another file.
 */
export function registerFiles(cliFiles: readonly string[], dataDir: string): RegisteredFile[] {
  const cli = cliFiles.map((file, k) => ({
    id: `f${k + 1}`,
    name: basename(file),
    origin: "cli" as const,
    path: resolve(file),
  }));
  const episodes = resolve(join(dataDir, "episodes.jsonl"));
  return [...cli, { id: "episodes", name: "episodes.jsonl", origin: "data", path: episodes }];
}

/** The file's listing entry; `size` is undefined while it does not exist. */
export async function describeFile(file: RegisteredFile): Promise<ServerFile> {
  try {
    const s = await stat(file.path);
    return { id: file.id, name: file.name, origin: file.origin, size: s.size };
  } catch {
    return { id: file.id, name: file.name, origin: file.origin };
  }
}

/** Reads bytes [start, end) of the file; fewer when the file is shorter. */
export async function readRange(path: string, start: number, end: number): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(Math.max(0, end - start));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
