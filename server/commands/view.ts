import { spawn as nodeSpawn } from "node:child_process";
import { existsSync } from "node:fs";
import { folderFiles, isDirectory, listRunDirectory } from "../files/runDirectory";
import { startServer } from "../index";
import type { ParsedArgs, ViewFlags } from "./commandFlags";
import { serveConfigFrom } from "./serveOptions";
import { parseCommand, viewSpec } from "./spec";

/** Where the browser should land: the one file's table, or the file list for several (or a run). */
export function viewUrl(host: string, port: number, fileCount: number): string {
  // A wildcard bind address is not something a browser can open.
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const origin = `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
  // Server files are `f1`, `f2`, ... (server/files/fileRegistry.ts): the id the API lists is the page's.
  return fileCount === 1 ? `${origin}/files/f1` : `${origin}/files`;
}

/**
 * What `view PATH...` shows for each argument: a file, or for a directory (a training run) its step
 * files in step order (server/files/runDirectory.ts), said in one line; a directory naming no step
 * has its rollout files listed one by one. Throws for a directory holding no rollout file.
 * Returns how many files the server will list.
 */
export function describeViewPaths(paths: readonly string[], out: (text: string) => void): number {
  let count = 0;
  for (const path of paths) {
    if (!isDirectory(path)) {
      // A trainer may not have written it yet: the table fills in when it appears (live tail).
      if (!existsSync(path)) out(`note: ${path} does not exist yet; it is tailed once it appears`);
      count += 1;
      continue;
    }
    const listing = listRunDirectory(path);
    const { steps, spanning, withoutStep } = listing;
    if (steps.length === 0 && spanning.length === 0) {
      const files = folderFiles(listing);
      count += describeFolder(path, files, out);
      const left = withoutStep.filter((file) => !files.includes(file));
      if (left.length > 0) {
        out(
          `note: ${left.length} file(s) are side files or configs and are left out: ${left.join(", ")}`,
        );
      }
      continue;
    }
    const first = steps[0]?.step;
    const last = steps.at(-1)?.step;
    if (steps.length > 0) {
      out(`run ${path}: ${steps.length} step files, steps ${first}–${last} (n / p step through)`);
    }
    if (spanning.length > 0) {
      out(`listed beside the run, every step in one file: ${spanning.join(", ")}`);
    }
    if (withoutStep.length > 0) {
      out(
        `note: ${withoutStep.length} file(s) name no step and are left out: ${withoutStep.join(", ")}`,
      );
    }
    count += steps.length + spanning.length;
  }
  return count;
}

/**
 * A directory none of whose files names a step: its rollout files listed one by one (not a run,
 * no step charts); an error when it holds none. Returns how many.
 */
function describeFolder(
  path: string,
  files: readonly string[],
  out: (text: string) => void,
): number {
  if (files.length === 0) {
    throw new Error(
      `${path}: no rollout files (.jsonl, .ndjson, .parquet, .pt, .pkl, or step files named like ` +
        `{step}.jsonl, step_N/…, *_step{N}.*, train_data_step{N}.jsonl or completions_{N}.parquet)`,
    );
  }
  out(
    `${path}: no file names a step, so it is no training run: its ${files.length} rollout file(s) are listed one by one`,
  );
  return files.length;
}

/**
 * The command that opens a URL: the `BROWSER` environment variable when set (a command and its
 * arguments split on whitespace, run without a shell, the URL appended last, as git and Python's
 * webbrowser do), else the default browser opener of `platform`.
 */
export function openerFor(
  platform: NodeJS.Platform,
  browser: string | undefined = process.env.BROWSER,
): { command: string; args: string[] } {
  // No shell and no quoting rules: a path with spaces needs a wrapper script.
  const [command, ...args] = (browser ?? "").split(/\s+/).filter((part) => part.length > 0);
  if (command !== undefined) return { command, args };
  if (platform === "darwin") return { command: "open", args: [] };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", '""'] };
  return { command: "xdg-open", args: [] };
}

type Spawn = typeof nodeSpawn;

/**
 * Tries to open `url` in a browser; resolves true when an opener started, false when none is
 * installed or it failed to start. Never throws: a headless box just keeps the printed URL.
 */
export function openBrowser(
  url: string,
  platform: NodeJS.Platform = process.platform,
  spawn: Spawn = nodeSpawn,
  browser: string | undefined = process.env.BROWSER,
): Promise<boolean> {
  const { command, args } = openerFor(platform, browser);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [...args, url], { stdio: "ignore", detached: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

/** What `view` writes; tests collect it. */
export interface ViewIo {
  readonly out: (text: string) => void;
  readonly start: typeof startServer;
  readonly open: (url: string) => Promise<boolean>;
}

const defaultIo: ViewIo = { out: (t) => console.log(t), start: startServer, open: openBrowser };

/**
 * `rollout-lens view PATH... [serve options] [--no-open]`: serves the files (a directory: a training
 * run's step files) and opens the browser on them. Resolves once the server listens (the caller keeps the process alive).
 */
export async function viewCommand(args: string[], io: ViewIo = defaultIo): Promise<number> {
  const parsed = parseCommand<ViewFlags>(viewSpec(), args);
  return typeof parsed === "number" ? parsed : runView(parsed, io);
}

/** Runs `view` on parsed flags and files; resolves once the server listens. */
export async function runView(
  { values, positionals }: ParsedArgs<ViewFlags>,
  io: ViewIo = defaultIo,
): Promise<number> {
  if (positionals.length === 0) throw new Error("view needs at least one FILE or DIR");
  // A run directory lands on the file list, where its per-step charts are.
  const shown = describeViewPaths(positionals, io.out);
  const config = serveConfigFrom(values, positionals);
  const { token } = await io.start(config);
  const url = viewUrl(config.host, config.port, positionals.some(isDirectory) ? shown + 1 : shown);
  // The token is printed once, in the startup line; the browser gets it in the URL it opens and
  // the server swaps it for a cookie and redirects to the same page without it.
  io.out(token === undefined ? `Open ${url}` : `Open ${url} (sign in once with the URL above)`);
  const signedIn = token === undefined ? url : `${url}?token=${encodeURIComponent(token)}`;
  if (values.open !== false && !(await io.open(signedIn))) {
    io.out("(no browser opener found: open the URL above yourself)");
  }
  return 0;
}
