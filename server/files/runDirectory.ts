import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { orderRunSteps, type RunSteps } from "../../src/core/files/runSteps";
import { isDirectoryRolloutFile } from "./expandInputs";

/**
 * Folders below a run directory that are searched for step files (`step_N/…`, `N/…/…`, prime-rl's
 * `rollouts/step_N/train/all/traces.jsonl` four deep, under an output folder five).
 */
const MAX_DEPTH = 5;

/** True when `path` is an existing directory. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Every file under `dir` (hidden entries skipped), up to MAX_DEPTH folders deep. */
function walk(dir: string, depth: number, out: string[]): void {
  let entries = readdirSync(dir, { withFileTypes: true });
  // A slime/miles --dump-details folder: its rollout dumps (docs/format.md "slime and miles `.pt` dumps").
  const dumps = entries.find((e) => e.name === "rollout_data" && e.isDirectory());
  if (dumps) entries = [dumps];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth < MAX_DEPTH) walk(path, depth + 1, out);
    } else if (entry.isFile()) out.push(path);
  }
}

/**
 * A training run's step files under `dir` (any readable format), in step order
 * (core/files/runSteps.ts); paths are absolute when `dir` is. Files naming no step are returned
 * apart. Throws when `dir` cannot be read.
 */
export function listRunDirectory(dir: string): RunSteps {
  const files: string[] = [];
  walk(dir, 0, files);
  // Steps are read from the part below the run directory, never from the folders above it.
  const below = new Map(files.map((path) => [relative(dir, path), path]));
  const ordered = orderRunSteps([...below.keys()]);
  const full = (rel: string) => below.get(rel) ?? join(dir, rel);
  return {
    steps: ordered.steps.map((s) => ({ ...s, path: full(s.path) })),
    spanning: ordered.spanning.map(full),
    withoutStep: ordered.withoutStep.map(full),
  };
}

/**
 * The files of a folder that is no run (none of its files names a step) served one by one, as
 * `validate DIR` reads them (isDirectoryRolloutFile): rollout files, not a trainer's side files,
 * not a document naming no step, which is more likely a config. Empty when the folder is a run.
 */
export function folderFiles(listing: RunSteps): string[] {
  if (listing.steps.length > 0 || listing.spanning.length > 0) return [];
  return listing.withoutStep.filter(isDirectoryRolloutFile);
}
