import { stat } from "node:fs/promises";
import { type RowSummary, summarizeTrajectory } from "../../src/core/files/rowSummary";
import { groupKeyOf } from "../../src/core/forest/groupKeys";
import type { ColumnMapping } from "../../src/core/formats/columnMapping";
import type { FormatId, LineError } from "../../src/core/formats/types";
import { chooseTokenizerFor, type TokenizerChoice } from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { DriftTokenizers } from "../drift/driftTokenizers";
import {
  type FileRegistry,
  mappingOf,
  type RegisteredFile,
  servedPath,
} from "../files/fileRegistry";
import { readRecords } from "../files/readLines";

/** Bad lines kept per file with their words; the rest are counted. */
const ERRORS_KEPT = 50;
/** Tokens of parsed trajectories kept in memory per file; a bigger file is re-read by line. */
const KEPT_TOKENS = 8_000_000;

/** A served file read once: its rows' summaries, its bad lines, and its trajectories on demand. */
export interface LoadedFile {
  readonly file: RegisteredFile;
  readonly format: FormatId | null;
  readonly rows: readonly RowSummary[];
  /** Each row's forest group key (core/forest/groupKeys), for mapping group members to rows. */
  readonly groupKeys: readonly (string | undefined)[];
  /** Lines read (records, for a table or document: see `unit`), bad ones and blanks included. */
  readonly lines: number;
  /** "record" when the file is a table or document: `lines` and each `line` count its records. */
  readonly unit?: "record";
  readonly errors: readonly LineError[];
  readonly errorCount: number;
  /** The tokenizer its ids are read with, and why (the rule `drift` uses). */
  readonly tokenizer: TokenizerChoice | null;
  /** The row-th trajectory of the file (0-based, as the app's table counts), as revised. */
  trajectory(row: number): Promise<Trajectory>;
  /** Keeps `t` (the row with a lane added) for this session; the file is never written. */
  revise(row: number, t: Trajectory): void;
}

/** The files an MCP session may read: only those the server was started with, by id. */
export interface McpFiles {
  readonly registry: FileRegistry;
  readonly tokenizers: DriftTokenizers;
  /** The user's `--tokenizer`, when given: it overrides each file's choice. */
  readonly picked: string | undefined;
  /** The file with this id, or an error naming the ids there are. */
  find(id: string): RegisteredFile;
  load(id: string): Promise<LoadedFile>;
}

/** Reads every record of `path` (any container `readLines` knows) into trajectories. */
async function* trajectoriesOf(
  path: string,
  mapping: ColumnMapping | undefined,
  onError: (error: LineError) => void,
  seen: { lines: number; unit?: "record" },
): AsyncGenerator<{ t: Trajectory; format: FormatId }> {
  for await (const { lineNo, result, isRecord } of readRecords(path, { mapping })) {
    seen.lines = lineNo;
    if (isRecord) seen.unit = "record";
    if (result.kind === "blank") continue;
    if (result.kind === "error") {
      onError(result.error);
      continue;
    }
    for (const t of result.trajectories) yield { t, format: result.format };
  }
}

async function readFileRows(files: McpFiles, file: RegisteredFile): Promise<LoadedFile> {
  const mapping = mappingOf(file);
  const rows: RowSummary[] = [];
  const groupKeys: (string | undefined)[] = [];
  const errors: LineError[] = [];
  let errorCount = 0;
  let format: FormatId | null = null;
  let kept: Trajectory[] | undefined = [];
  let keptTokens = 0;
  let first: Trajectory | undefined;
  const onError = (error: LineError) => {
    errorCount += 1;
    if (errors.length < ERRORS_KEPT) errors.push(error);
  };
  const seen: { lines: number; unit?: "record" } = { lines: 0 };
  for await (const { t, format: f } of trajectoriesOf(file.path, mapping, onError, seen)) {
    format = f;
    first ??= t;
    const summary = summarizeTrajectory(t, rows.length, f);
    rows.push(summary);
    groupKeys.push(groupKeyOf(t)?.key);
    keptTokens += summary.totalTokens;
    if (kept && keptTokens <= KEPT_TOKENS) kept.push(t);
    else kept = undefined;
  }
  const { lines } = seen;
  const tokenizer =
    first === undefined
      ? null
      : chooseTokenizerFor(first, {
          picked: files.picked,
          names: files.tokenizers.names,
          fallback: files.tokenizers.fallback,
        });
  const all = kept;
  const revised = new Map<number, Trajectory>();
  return {
    ...{ file, format, rows, groupKeys, lines, errors, errorCount, tokenizer },
    ...(seen.unit === undefined ? {} : { unit: seen.unit }),
    async trajectory(row) {
      const summary = rows[row];
      if (summary === undefined) {
        throw new Error(`${file.name}: no row ${row} (the file has ${rows.length} rows, 0-based)`);
      }
      const cached = revised.get(row) ?? all?.[row];
      if (cached) return cached;
      let index = 0;
      for await (const { t } of trajectoriesOf(file.path, mapping, () => {}, { lines: 0 })) {
        if (index++ === row) return t;
      }
      throw new Error(`${file.name}: row ${row} is gone (the file changed since it was read)`);
    },
    revise(row, t) {
      revised.set(row, t);
    },
  };
}

/**
 * The MCP session's files, each read on first use and again only when its size or modification
 * time changed (a file a trainer is still writing).
 */
export function createMcpFiles(
  registry: FileRegistry,
  tokenizers: DriftTokenizers,
  picked: string | undefined,
): McpFiles {
  const cache = new Map<string, { key: string; loaded: Promise<LoadedFile> }>();
  const files: McpFiles = {
    registry,
    tokenizers,
    picked,
    find(id) {
      const file = registry.find(id);
      if (file) return file;
      const ids = registry
        .list()
        .map((f) => f.id)
        .join(", ");
      throw new Error(`no file with id "${id}": the files are ${ids} (list_files)`);
    },
    async load(id) {
      const file = files.find(id);
      // A served file swapped for a link that leads out is refused, as /api/files refuses it.
      await servedPath(file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      });
      const s = await stat(file.path).catch(() => undefined);
      if (s === undefined) throw new Error(`${file.name}: the file does not exist (yet)`);
      const key = `${s.size}:${s.mtimeMs}`;
      const hit = cache.get(id);
      if (hit && hit.key === key) return hit.loaded;
      const loaded = readFileRows(files, file);
      cache.set(id, { key, loaded });
      loaded.catch(() => cache.delete(id));
      return loaded;
    },
  };
  return files;
}
