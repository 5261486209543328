import { closeSync, fstatSync, fsyncSync, openSync, writeSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, truncate } from "node:fs/promises";
import { join } from "node:path";
import type { Segment, Trajectory } from "../../src/core/trajectory/types";

/** Serializes a finished trajectory as one line object (rollout-lens/v1). */
export type SerializeTrajectory = (trajectory: Trajectory) => unknown;

/** The header a running episode's journal starts with: the trajectory without its segments. */
export type JournalHeader = Omit<Trajectory, "segments" | "status">;

export interface RecoveryReport {
  /** Running episodes found after a restart, now stored as `aborted`. */
  readonly recovered: readonly string[];
  /** Bytes of a torn last line (a crash mid-write), moved aside; 0 when the file was whole. */
  readonly tornBytes: number;
  readonly tornPath?: string;
}

/** The end reason of an episode found running after a restart. */
export const RECOVERED_REASON = "server stopped while the episode ran";

const EPISODES_FILE = "episodes.jsonl";
const RUNNING_DIR = "running";
const TORN_DIR = "torn";

/** Where a stored line sits in its file, in bytes. */
export interface StoredLine {
  readonly offset: number;
  readonly length: number;
}

function appendLineSync(path: string, line: string): StoredLine {
  // One write of a whole line, then fsync: a crash leaves either nothing or the whole line, except
  // for a torn tail on a full disk or power loss, which `open()` detects and moves aside.
  const fd = openSync(path, "a");
  try {
    const offset = fstatSync(fd).size;
    const bytes = Buffer.from(`${line}\n`, "utf8");
    writeSync(fd, bytes);
    fsyncSync(fd);
    return { offset, length: bytes.length - 1 };
  } finally {
    closeSync(fd);
  }
}

/**
 * Append-only JSONL persistence of episodes in the data directory. Finished episodes are one line
 * each in `episodes.jsonl`; a running episode keeps a journal (`running/<id>.jsonl`: a header line,
 * then one line per appended segment) so a restart recovers it as `aborted` with its partial tokens.
 */
export class EpisodeStore {
  readonly episodesPath: string;
  private readonly runningDir: string;

  constructor(
    readonly dataDir: string,
    readonly serialize: SerializeTrajectory,
  ) {
    this.episodesPath = join(dataDir, EPISODES_FILE);
    this.runningDir = join(dataDir, RUNNING_DIR);
  }

  /** Creates the folders, repairs a torn tail and turns leftover journals into aborted episodes. */
  async open(): Promise<RecoveryReport> {
    await mkdir(this.runningDir, { recursive: true });
    const torn = await this.moveTornTail();
    const recovered: string[] = [];
    for (const name of (await readdir(this.runningDir)).sort()) {
      if (!name.endsWith(".jsonl")) continue;
      const path = join(this.runningDir, name);
      const trajectory = await readJournal(path);
      if (trajectory) {
        appendLineSync(this.episodesPath, JSON.stringify(this.serialize(trajectory)));
        recovered.push(trajectory.id);
      }
      await rm(path, { force: true });
    }
    return { recovered, ...torn };
  }

  private async moveTornTail(): Promise<{ tornBytes: number; tornPath?: string }> {
    let size: number;
    try {
      size = (await stat(this.episodesPath)).size;
    } catch {
      return { tornBytes: 0 };
    }
    if (size === 0) return { tornBytes: 0 };
    const handle = await open(this.episodesPath, "r");
    try {
      // Scan back from the end for the last newline; the bytes after it are a torn line.
      const chunk = Buffer.alloc(64 * 1024);
      let end = size;
      while (end > 0) {
        const start = Math.max(0, end - chunk.length);
        const { bytesRead } = await handle.read(chunk, 0, end - start, start);
        const nl = chunk.subarray(0, bytesRead).lastIndexOf(10);
        if (nl >= 0) {
          const keep = start + nl + 1;
          if (keep === size) return { tornBytes: 0 };
          return await this.setTornAside(handle, keep, size);
        }
        end = start;
      }
      return await this.setTornAside(handle, 0, size);
    } finally {
      await handle.close();
    }
  }

  private async setTornAside(
    handle: Awaited<ReturnType<typeof open>>,
    keep: number,
    size: number,
  ): Promise<{ tornBytes: number; tornPath: string }> {
    const torn = Buffer.alloc(size - keep);
    await handle.read(torn, 0, torn.length, keep);
    await mkdir(join(this.dataDir, TORN_DIR), { recursive: true });
    const tornPath = join(this.dataDir, TORN_DIR, `episodes-${Date.now()}-at-byte-${keep}.txt`);
    await writeFileAtomic(tornPath, torn);
    await truncate(this.episodesPath, keep);
    return { tornBytes: torn.length, tornPath };
  }

  /** Starts the journal of a running episode. */
  begin(header: JournalHeader): void {
    appendLineSync(this.journalPath(header.id), JSON.stringify({ header }));
  }

  /** Records one appended segment of a running episode (O(segment size)). */
  appendSegment(id: string, segment: Segment): void {
    appendLineSync(this.journalPath(id), JSON.stringify({ segment }));
  }

  /**
   * Records several appended segments in one write and one fsync (a branch's copied prefix). With
   * `indices`, each segment is recorded at its index: a later one at the same index replaces it
   * (a branch's parent tokens, replaced by the first reply that starts with them).
   */
  appendSegments(id: string, segments: readonly Segment[], indices?: readonly number[]): void {
    if (segments.length === 0) return;
    appendLineSync(
      this.journalPath(id),
      segments
        .map((segment, k) => {
          const index = indices?.[k];
          return JSON.stringify(index === undefined ? { segment } : { index, segment });
        })
        .join("\n"),
    );
  }

  /** Stores the finished episode as one line and drops its journal. */
  async finish(trajectory: Trajectory): Promise<StoredLine> {
    const stored = appendLineSync(this.episodesPath, JSON.stringify(this.serialize(trajectory)));
    await rm(this.journalPath(trajectory.id), { force: true });
    return stored;
  }

  /** Reads back one stored line by its position. */
  async readLine(at: StoredLine): Promise<string> {
    const handle = await open(this.episodesPath, "r");
    try {
      const buffer = Buffer.alloc(at.length);
      await handle.read(buffer, 0, at.length, at.offset);
      return buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  }

  private journalPath(id: string): string {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw new Error(`invalid episode id "${id}"`);
    return join(this.runningDir, `${id}.jsonl`);
  }
}

async function writeFileAtomic(path: string, data: Buffer): Promise<void> {
  const tmp = `${path}.tmp`;
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

/** A journaled segment at its index (replacing what was there and dropping what followed), else last. */
function placeSegment(segments: Segment[], segment: Segment, index: number | undefined): void {
  if (index === undefined || !Number.isInteger(index) || index < 0 || index > segments.length) {
    segments.push(segment);
    return;
  }
  segments.length = index;
  segments.push(segment);
}

/** Rebuilds a running episode from its journal as `aborted`; a torn last journal line is skipped. */
async function readJournal(path: string): Promise<Trajectory | undefined> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((l) => l.trim() !== "");
  let header: JournalHeader | undefined;
  const segments: Segment[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    // Our own journal, written by this class: the shapes are trusted once the JSON parses.
    let entry: { header?: JournalHeader; segment?: Segment; index?: number };
    try {
      entry = JSON.parse(line);
    } catch {
      // Only the last line can be torn by a crash mid-write; anything else is reported.
      problems.push(`${path}:${i + 1}: ${i === lines.length - 1 ? "torn last line" : "bad line"}`);
      return;
    }
    if (entry.header) header = entry.header;
    else if (entry.segment) placeSegment(segments, entry.segment, entry.index);
  });
  if (!header) return undefined;
  return {
    ...header,
    status: "aborted",
    endReason: RECOVERED_REASON,
    segments,
    metadata: {
      ...header.metadata,
      ...(problems.length > 0 ? { journal_problems: problems } : {}),
    },
  };
}
