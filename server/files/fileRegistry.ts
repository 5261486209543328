import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { rolloutDumpOfColumns } from "../../src/core/files/dashboardColumns";
import type { ServerFile } from "../../src/core/files/filesWire";
import { isTrainDumpName, rolloutDumpPlace, trainDumpNames } from "../../src/core/files/trainDump";
import { type ColumnMapping, parseMapSpec } from "../../src/core/formats/columnMapping";
import { folderFiles, isDirectory, listRunDirectory } from "./runDirectory";

/** A file the server may serve: its public id and its absolute path (never sent to the browser). */
export interface RegisteredFile {
  readonly id: string;
  readonly name: string;
  readonly origin: ServerFile["origin"];
  /** The path resolved (links followed) when the file was registered: what is opened. */
  readonly path: string;
  /**
   * Where the path may lead if it is swapped for a link later (servedPath): the run directory of
   * a step file, the data directory of the episode store, the file itself for a plain file.
   */
  readonly root: string;
  /** The run directory it is a step file of (`view DIR`). */
  readonly run?: ServerFile["run"];
  /** `--map SPEC`: the column mapping a CLI file is read through (sent to the browser as is). */
  readonly map?: string;
}

/**
 * The id of a run's step file, derived from its path below the run directory (never from its
 * place in the listing): a step written later never shifts the ids of the others, and a restart
 * gives every file the id it had.
 */
export function runFileId(runId: string, relativePath: string): string {
  return `${runId}-${createHash("sha256").update(relativePath).digest("hex").slice(0, 12)}`;
}

/** A step file of a run directory as listed: its path, step, and train/eval when known. */
type RunStepFile = ReturnType<typeof listRunDirectory>["steps"][number];

/** A run's step file as registered: its name is its path below the run directory. */
function runFile(
  dir: string,
  run: { readonly id: string; readonly name: string },
  step: RunStepFile,
  map: string | undefined,
): RegisteredFile {
  const { path, ...position } = step;
  const name = relative(dir, path).split("\\").join("/");
  return {
    id: runFileId(run.id, name),
    name,
    origin: "cli",
    path: resolvedAtStart(path),
    root: resolvedAtStart(dir),
    run: { ...run, ...position },
    ...(map === undefined ? {} : { map }),
  };
}

/**
 * A run's file that holds every step (Tinker's `capture/sample.jsonl`, each record naming its
 * step): listed beside the run's step files as `{run}/{path}`, its id derived from its path.
 */
function spanningFile(
  dir: string,
  run: { readonly id: string; readonly name: string },
  path: string,
  map: string | undefined,
): RegisteredFile {
  const name = relative(dir, path).split("\\").join("/");
  return {
    id: runFileId(run.id, name),
    name: `${run.name}/${name}`,
    origin: "cli",
    path: resolvedAtStart(path),
    root: resolvedAtStart(dir),
    ...(map === undefined ? {} : { map }),
  };
}

/**
 * The only files `/api/files` can reach: the CLI files (`f1`, `f2`, ... in argument order), the
 * step files of run directories (`r1-…`, from their path: runFileId) and the live-episode store
 * (`episodes`). Ids are looked up, never turned into paths, so no request can name another file.
 * A CLI argument that is a directory is a training run: its step files (server/files/runDirectory)
 * are registered in step order, named by their path below it, each with its run and step.
 */
export function registerFiles(
  cliFiles: readonly string[],
  dataDir: string,
  map?: string,
): RegisteredFile[] {
  const cli: RegisteredFile[] = [];
  const mapped = map === undefined ? {} : { map };
  let runs = 0;
  let plain = 0;
  for (const file of cliFiles) {
    if (!isDirectory(file)) {
      plain += 1;
      const path = resolvedAtStart(file);
      cli.push({
        id: `f${plain}`,
        name: basename(file),
        origin: "cli",
        path,
        root: path,
        ...mapped,
      });
      continue;
    }
    const dir = resolve(file);
    runs += 1;
    const run = { id: `r${runs}`, name: basename(dir) };
    const listing = listRunDirectory(dir);
    for (const step of listing.steps) cli.push(runFile(dir, run, step, map));
    for (const path of listing.spanning) cli.push(spanningFile(dir, run, path, map));
    // A folder that is no run: its rollout files, each as a file of its own.
    for (const path of folderFiles(listing)) cli.push(spanningFile(dir, run, path, map));
  }
  const episodes = resolvedAtStart(join(dataDir, "episodes.jsonl"));
  const store = { path: episodes, root: dirname(episodes) };
  return [...cli, { id: "episodes", name: "episodes.jsonl", origin: "data", ...store }];
}

/** `path` with every link followed; for a file not written yet, its folder's (it may appear later). */
function resolvedAtStart(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

const isInside = (path: string, root: string) => path === root || path.startsWith(root + sep);

/**
 * The path to open for a served file: the one resolved at start, unless it has since been swapped
 * for a link, which is followed only while it stays inside the file's root (a plain file's root is
 * itself). Throws, naming the file, for a link that leads out; missing files throw ENOENT.
 */
export async function servedPath(file: RegisteredFile): Promise<string> {
  const now = await realpath(file.path);
  if (now === file.path || isInside(now, file.root)) return now;
  throw new Error(
    `${file.name} was replaced by a link that leads outside ${file.root === file.path ? "the file served at start" : "its served directory"}; it is not served`,
  );
}

/** The column mapping a file is read through (`--map`, checked at startup), if any. */
export function mappingOf(file: RegisteredFile): ColumnMapping | undefined {
  const parsed = file.map === undefined ? undefined : parseMapSpec(file.map);
  return parsed?.ok ? parsed.mapping : undefined;
}

function listed(file: RegisteredFile): ServerFile {
  const entry = {
    id: file.id,
    name: file.name,
    origin: file.origin,
    ...(file.map === undefined ? {} : { map: file.map }),
  };
  return file.run ? { ...entry, run: file.run } : entry;
}

/** Separates a rollout dump's id from one of its train dump's file name in the train dump's id. */
const TRAIN_DUMP_ID = "~";

/**
 * Train dump `name` of a served rollout dump (`.../rollout_data/{id}.pt`), served under id
 * `{rolloutId}~{name}`: a file of the train_data folder beside it whose name the core rule
 * accepts (trainDumpNames), so no id ever names another path.
 */
function trainDumpFile(rollout: RegisteredFile, name: string): RegisteredFile | undefined {
  const place = rolloutDumpPlace(rollout.path);
  if (!place || !isTrainDumpName(place.id, name)) return undefined;
  const path = resolvedAtStart(join(place.trainDir, name));
  // Served inside the folder holding rollout_data/ and train_data/: a link leading out is not.
  const root = place.base;
  if (!isInside(path, root)) return undefined;
  const shown = /(?:^|\/)rollout_data\/[^/]+$/.exec(rollout.name);
  const base = shown ? rollout.name.slice(0, shown.index + (shown[0].startsWith("/") ? 1 : 0)) : "";
  return {
    id: `${rollout.id}${TRAIN_DUMP_ID}${name}`,
    name: `${base}train_data/${name}`,
    origin: rollout.origin,
    path,
    root,
  };
}

/** The id suffix of the rollout dump a served miles dashboard column file was written beside. */
const ROLLOUT_DUMP_ID = "~rollout-dump";

/**
 * The rollout dump `{base}/rollout_data/{stem}.pt` beside a served dashboard column file
 * `{base}/dashboard_columns/rollout_{stem}.parquet` (core/files/dashboardColumns.ts), served
 * under id `{columns id}~rollout-dump` inside `{base}`.
 */
function columnsDumpFile(columns: RegisteredFile): RegisteredFile | undefined {
  const dumpPath = rolloutDumpOfColumns(columns.path);
  if (!dumpPath) return undefined;
  const root = dirname(dirname(columns.path));
  const path = resolvedAtStart(dumpPath);
  if (!isInside(path, root)) return undefined;
  const shown = /(?:^|\/)dashboard_columns\/rollout_([^/]+)\.parquet$/.exec(columns.name);
  const prefix = shown
    ? columns.name.slice(0, shown.index + (shown[0].startsWith("/") ? 1 : 0))
    : "";
  const stem = /rollout_data[\\/]([^\\/]+)$/.exec(dumpPath)?.[1] ?? "";
  return {
    id: `${columns.id}${ROLLOUT_DUMP_ID}`,
    name: `${prefix}rollout_data/${stem}`,
    origin: columns.origin,
    path,
    root,
  };
}

/** The served file of id `id` when it names a companion (train dump, rollout dump) of a served file. */
function findCompanion(
  id: string,
  find: (id: string) => RegisteredFile | undefined,
): RegisteredFile | undefined {
  if (id.endsWith(ROLLOUT_DUMP_ID)) {
    const columns = find(id.slice(0, -ROLLOUT_DUMP_ID.length));
    return columns && columnsDumpFile(columns);
  }
  const at = id.lastIndexOf(TRAIN_DUMP_ID);
  if (at <= 0) return undefined;
  const rollout = find(id.slice(0, at));
  return rollout && trainDumpFile(rollout, id.slice(at + 1));
}

/** The train dumps on disk beside a served rollout dump (none for any other file). */
async function trainDumpsOf(file: RegisteredFile): Promise<RegisteredFile[]> {
  const place = rolloutDumpPlace(file.path);
  if (!place) return [];
  const names = await readdir(place.trainDir).catch(() => [] as string[]);
  return trainDumpNames(place.id, names).flatMap((name) => trainDumpFile(file, name) ?? []);
}

/** The file's companions on disk: a rollout dump's train dumps, a column file's rollout dump. */
async function companionsOf(file: RegisteredFile): Promise<Partial<ServerFile>> {
  const trains = await trainDumpsOf(file);
  const dump = columnsDumpFile(file);
  const dumpThere = dump !== undefined && (await stat(dump.path).catch(() => undefined));
  return {
    ...(trains.length === 0 ? {} : { trainDumps: trains.map(({ id, name }) => ({ id, name })) }),
    ...(dump && dumpThere ? { rolloutDump: { id: dump.id, name: dump.name } } : {}),
  };
}

/** The file's listing entry; `size` is undefined while it does not exist. */
export async function describeFile(file: RegisteredFile): Promise<ServerFile> {
  const entry: ServerFile = { ...listed(file), ...(await companionsOf(file)) };
  try {
    const s = await stat(file.path);
    return { ...entry, size: s.size };
  } catch {
    return entry;
  }
}

/** The registered files, kept up to date with run directories a trainer is still writing. */
export interface FileRegistry {
  /**
   * Every file: plain files in argument order, a run's step files in step order, the episode
   * store last. Run directories are listed again (at most every `rescanMs`), so a step written
   * after the server started appears; ids come from paths (runFileId), so none ever changes.
   */
  list(): readonly RegisteredFile[];
  find(id: string): RegisteredFile | undefined;
}

const byPathNatural = new Intl.Collator("en", { numeric: true }).compare;

export function createFileRegistry(
  cliFiles: readonly string[],
  dataDir: string,
  options: {
    readonly rescanMs?: number;
    readonly now?: () => number;
    /** `--map SPEC` of the CLI files. */
    readonly map?: string;
  } = {},
): FileRegistry {
  const now = options.now ?? Date.now;
  const rescanMs = options.rescanMs ?? 2000;
  let files = registerFiles(cliFiles, dataDir, options.map);
  const known = new Map(files.map((f) => [f.path, f]));
  const byId = new Map(files.map((f) => [f.id, f]));
  // Each run directory and its run, in argument order (as registerFiles numbered them).
  const runs = cliFiles.filter(isDirectory).map((dir, k) => ({
    dir: resolve(dir),
    run: { id: `r${k + 1}`, name: basename(resolve(dir)) },
  }));
  let scannedAt = now();
  const rescan = () => {
    let added = false;
    for (const { dir, run } of runs) {
      let steps: readonly { path: string; step: number }[];
      try {
        steps = listRunDirectory(dir).steps;
      } catch {
        continue; // the directory went away: its files stay listed (without a size)
      }
      for (const { path, step } of steps) {
        if (known.has(path)) continue;
        const file = runFile(dir, run, { path, step }, options.map);
        known.set(path, file);
        byId.set(file.id, file);
        added = true;
      }
    }
    if (!added) return;
    // Plain files keep their place; each run's files are re-sorted in step order.
    const ordered: RegisteredFile[] = [];
    const placed = new Set<string>();
    for (const f of files) {
      if (!f.run) ordered.push(f);
      else if (!placed.has(f.run.id)) {
        placed.add(f.run.id);
        const runId = f.run.id;
        const ofRun = [...known.values()].filter((g) => g.run?.id === runId);
        ofRun.sort(
          (a, b) => (a.run?.step ?? 0) - (b.run?.step ?? 0) || byPathNatural(a.path, b.path),
        );
        ordered.push(...ofRun);
      }
    }
    files = ordered;
  };
  return {
    list() {
      if (runs.length > 0 && now() - scannedAt >= rescanMs) {
        scannedAt = now();
        rescan();
      }
      return files;
    },
    find(id) {
      // An id not seen yet may be a step written since the last listing, or a train dump.
      if (!byId.has(id)) this.list();
      return byId.get(id) ?? findCompanion(id, (fileId) => byId.get(fileId));
    },
  };
}
