import { readdir, stat } from "node:fs/promises";
import { globBase, globToRegExp, hasGlobMagic } from "../../src/core/files/glob";
import { isRunSideFile, runPositionOf } from "../../src/core/files/runSteps";

/** What a directory argument contributes: the rollout files in it (and `.json` step files). */
export const ROLLOUT_EXTENSIONS = [
  ".jsonl",
  ".ndjson",
  ".pt",
  ".parquet",
  ".pkl",
  ".table.json",
] as const;

/** The files named by command-line arguments, and the arguments that named none. */
export interface ExpandedInputs {
  /** In argument order; a directory's or glob's files sorted by path (code units), no repeats. */
  readonly files: string[];
  /** One message per argument that names no file (an empty directory, a glob matching nothing). */
  readonly problems: string[];
  /**
   * One message per directory that held JSON files left out by their name (a `.json` naming no
   * step, a trainer's metrics), so no file goes unread without a word. Not an error.
   */
  readonly notes: string[];
}

/**
 * The files of a directory the commands read: what `view DIR` lists (docs/format.md "Run
 * directories"): rollout files by extension, and a JSON document (or ART's trajectories YAML)
 * when its path names a step (a `config.json` or `config.yaml` beside the rollouts is not one);
 * never a trainer's side file (metrics next to the rollouts: prime-rl, Tinker).
 */
export function isDirectoryRolloutFile(path: string): boolean {
  if (isRunSideFile(path)) return false;
  if (ROLLOUT_EXTENSIONS.some((ext) => path.endsWith(ext))) return true;
  // A document (JSON, or ART's trajectories YAML) counts when it names a step, not a config.
  return /\.(?:json|yaml)$/.test(path) && runPositionOf(path) !== undefined;
}

function join(dir: string, name: string): string {
  if (dir === "") return name;
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/**
 * Every file under `dir` (recursively) that `keep` accepts, as `dir/…` paths. Entries whose name
 * starts with `.` (`.git`, editors' temporaries) are skipped, as shells skip them for `*`.
 */
async function walk(
  dir: string,
  keep: (path: string) => boolean,
  out: string[],
  passed?: string[],
): Promise<void> {
  let entries = await readdir(dir === "" ? "." : dir, { withFileTypes: true });
  // A slime/miles --dump-details folder is one run: its rollout dumps, which read their
  // train_data/ siblings themselves (docs/format.md "slime and miles `.pt` dumps").
  const dumps = entries.find((e) => e.name === "rollout_data" && e.isDirectory());
  if (dumps) entries = [dumps];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      const target = await stat(path).catch(() => undefined);
      // A link to a directory is not followed (no cycles); a link to a file is a file.
      isDir = false;
      isFile = target?.isFile() ?? false;
    }
    if (isDir) await walk(path, keep, out, passed);
    else if (isFile && keep(path)) out.push(path);
    else if (isFile && /\.(?:json|jsonl|ndjson|yaml)$/.test(path)) passed?.push(path);
  }
}

function sorted(paths: string[]): string[] {
  return paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The note on JSON files a directory walk left out, naming the first few. */
function passedNote(dir: string, passed: string[]): string {
  const shown = sorted(passed).slice(0, 5);
  const more = passed.length > shown.length ? ` and ${passed.length - shown.length} more` : "";
  return (
    `${dir}: left out ${passed.length} JSON or YAML file(s) whose name says they hold no rollouts ` +
    `(a trainer's metrics or side file, a config, a .json or .yaml naming no step): ${shown.join(", ")}${more}; ` +
    "give a file by name to read it"
  );
}

/**
 * Expands command-line inputs the same way on every machine of a job: a file stays itself (one
 * that does not exist too, so the command reports it as unreadable); a directory becomes the
 * rollout files (`.jsonl`, `.ndjson`, `.pt`, `.parquet`, `.pkl`, and `.json`/`.yaml` step files) inside it, recursively (of a folder holding
 * `rollout_data/`, a slime/miles --dump-details folder, only those); a pattern with `*`, `?`, `[…]` or
 * `{…}` (quoted, so the shell leaves it to us) becomes the files it matches (see core/files/glob).
 * Paths keep the form they were given in (`runs/a.jsonl`, not absolute), which `--shard` hashes.
 */
export async function expandInputs(args: readonly string[]): Promise<ExpandedInputs> {
  const files: string[] = [];
  const seen = new Set<string>();
  const problems: string[] = [];
  const notes: string[] = [];
  const add = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    files.push(path);
  };
  for (const arg of args) {
    const info = await stat(arg).catch(() => undefined);
    if (info?.isDirectory()) {
      const found: string[] = [];
      const passed: string[] = [];
      await walk(arg.replace(/\/+$/, "") || "/", isDirectoryRolloutFile, found, passed);
      if (passed.length > 0) notes.push(passedNote(arg, passed));
      if (found.length === 0) {
        problems.push(
          `${arg}: no rollout file (${ROLLOUT_EXTENSIONS.join(", ")}) in this directory`,
        );
      }
      for (const path of sorted(found)) add(path);
    } else if (info === undefined && hasGlobMagic(arg)) {
      const regex = globToRegExp(arg);
      const base = globBase(arg);
      const found: string[] = [];
      const baseInfo = await stat(base === "" ? "." : base).catch(() => undefined);
      if (baseInfo?.isDirectory()) await walk(base, (path) => regex.test(path), found);
      if (found.length === 0) problems.push(`${arg}: no file matches this pattern`);
      for (const path of sorted(found)) add(path);
    } else {
      add(arg);
    }
  }
  return { files, problems, notes };
}
