// The drift checks' tokenizer loader: the compact form (src/core/tokenizer/compactFormat.ts)
// instead of parsing tokenizer.json and building the library's BPE (most of a one-line drift
// check's time). Bundled tokenizers ship their blob in lib/ (written at pack time); any other
// folder, or a clone, derives it on first use and caches it, keyed so it is never stale.
import { createHash } from "node:crypto";
import { mkdir, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { loadOnce } from "../../src/core/loadOnce";
import {
  buildCompactTokenizer,
  COMPACT_FORMAT_VERSION,
  type CompactTokenizerData,
  readCompactTokenizer,
} from "../../src/core/tokenizer/compactFormat";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { usableCompactTokenizer } from "../../src/tokenizer/compactTokenizerFiles";
import { PACKAGE_ROOT } from "../paths";
import {
  BUNDLED_TOKENIZERS,
  readChatTemplateFile,
  readJson,
  resolveTokenizerDir,
} from "./loadTokenizer";

/**
 * Where derived compact tokenizers are kept: `ROLLOUT_LENS_CACHE_DIR`, else the OS cache folder
 * (`XDG_CACHE_HOME` or ~/.cache, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows).
 */
export function tokenizerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ROLLOUT_LENS_CACHE_DIR) return join(env.ROLLOUT_LENS_CACHE_DIR, "tokenizers");
  const base =
    process.platform === "win32"
      ? (env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"))
      : process.platform === "darwin"
        ? join(homedir(), "Library", "Caches")
        : (env.XDG_CACHE_HOME ?? join(homedir(), ".cache"));
  return join(base, "rollout-lens", "tokenizers");
}

/** The blob a bundled tokenizer ships with in lib/ (scripts/buildServer.ts writes it). */
export function bundledCompactPath(name: string): string {
  return join(PACKAGE_ROOT, "lib", `${name}.tokenizer.bin`);
}

async function statOf(path: string, what: string) {
  try {
    return await stat(path, { bigint: true });
  } catch (error) {
    const missing = error instanceof Error && "code" in error && error.code === "ENOENT";
    if (missing) throw new Error(`${what}: missing file ${path}`);
    throw error;
  }
}

/**
 * What a compact blob was derived from, stored in it and compared on every load: for a bundled
 * tokenizer its package, version and tokenizer.json size (npm gives installed files one fixed
 * mtime); for a folder the file's real path, size, inode and modification and change times.
 */
export async function compactSource(nameOrPath: string): Promise<Record<string, string>> {
  const dir = resolveTokenizerDir(nameOrPath);
  const json = join(dir, "tokenizer.json");
  const info = await statOf(json, `tokenizer ${nameOrPath}`);
  const pkg = BUNDLED_TOKENIZERS[nameOrPath];
  if (pkg) {
    const meta = (await readJson(join(dir, "..", "package.json"), `tokenizer ${nameOrPath}`)) as {
      version?: unknown;
    };
    return { package: pkg, version: String(meta.version), size: String(info.size) };
  }
  return {
    path: await realpath(json),
    size: String(info.size),
    mtime: String(info.mtimeNs),
    ctime: String(info.ctimeNs),
    inode: String(info.ino),
  };
}

/** The cache file of a tokenizer folder (one per folder: a changed file replaces it). */
function cachePath(source: Record<string, string>): string {
  const key = JSON.stringify({ v: COMPACT_FORMAT_VERSION, at: source.path ?? source.package });
  return join(
    tokenizerCacheDir(),
    `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.bin`,
  );
}

/** The blob at `path` when it exists, reads and was derived from `source`; else undefined. */
async function readFresh(
  path: string,
  source: Record<string, string>,
): Promise<{ compact: CompactTokenizerData; blob: Uint8Array } | undefined> {
  try {
    const blob = await readFile(path);
    const compact = readCompactTokenizer(blob);
    const fresh = JSON.stringify(compact.header.source) === JSON.stringify(source);
    return fresh ? { compact, blob } : undefined;
  } catch {
    return undefined; // missing, another version, or damaged: derived again
  }
}

/** Writes the blob atomically (a concurrent reader sees the old file or the new one); best effort. */
async function writeCache(path: string, blob: Uint8Array): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(temp, blob);
    await rename(temp, path);
  } catch {
    // A read-only or full cache only costs the next run the derivation again.
  }
}

/** The compact blob of a bundled tokenizer, as written into lib/ at pack time. */
export async function buildBundledCompact(name: string): Promise<Uint8Array> {
  const dir = resolveTokenizerDir(name);
  const json = await readJson(join(dir, "tokenizer.json"), `tokenizer ${name}`);
  return buildCompactTokenizer(json, await compactSource(name));
}

/**
 * The compact blob of a tokenizer (short name or folder), as bytes and read: from lib/ (bundled),
 * the cache, or derived now (and cached). `tokenizerJson` is the parsed file when it had to be read.
 */
export async function compactTokenizerFor(
  nameOrPath: string,
): Promise<{ compact: CompactTokenizerData; blob: Uint8Array; tokenizerJson?: unknown }> {
  const source = await compactSource(nameOrPath);
  const places = [
    ...(BUNDLED_TOKENIZERS[nameOrPath] ? [bundledCompactPath(nameOrPath)] : []),
    cachePath(source),
  ];
  for (const place of places) {
    const found = await readFresh(place, source);
    if (found) return found;
  }
  const dir = resolveTokenizerDir(nameOrPath);
  const tokenizerJson = await readJson(join(dir, "tokenizer.json"), `tokenizer ${nameOrPath}`);
  const blob = buildCompactTokenizer(tokenizerJson, source);
  await writeCache(cachePath(source), blob);
  return { compact: readCompactTokenizer(blob), blob, tokenizerJson };
}

/** Blobs served to browsers, per tokenizer, with the source they were derived from. */
const served = new Map<string, { readonly source: string; readonly blob: Promise<Uint8Array> }>();

/**
 * The compact blob the browser's workers load (`GET /api/tokenizers/:name/compact`), held in
 * memory once read: each request still checks the source (a stat) and reads the blob again when
 * the tokenizer's files changed, but is not re-read and re-checked from disk when they did not.
 */
export async function servedCompactBlob(nameOrPath: string): Promise<Uint8Array> {
  const source = JSON.stringify(await compactSource(nameOrPath));
  const held = served.get(nameOrPath);
  if (held?.source === source) return held.blob;
  const blob = compactTokenizerFor(nameOrPath).then((found) => found.blob);
  served.set(nameOrPath, { source, blob });
  // A failed read is not held: the next request tries again (and reports its own error).
  blob.catch(() => {
    if (served.get(nameOrPath)?.blob === blob) served.delete(nameOrPath);
  });
  return blob;
}

/**
 * The tokenizer the drift checks run with: the compact one (`compactTokenizerFor`); the
 * library-backed one when the compact form cannot stand in for it (the round-trip proof refuses
 * the pipeline, say), built from the same parsed files. Both give the same ids and text.
 */
export async function openDriftTokenizer(nameOrPath: string): Promise<Tokenizer> {
  const dir = resolveTokenizerDir(nameOrPath);
  const what = `tokenizer ${nameOrPath}`;
  // Settled in a fixed order, so the error names the same file whatever read finished first.
  const settled = await Promise.allSettled([
    compactTokenizerFor(nameOrPath),
    readJson(join(dir, "tokenizer_config.json"), what),
    readChatTemplateFile(dir),
  ]);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  const [found, tokenizerConfig, chatTemplate] = settled.map((o) =>
    o.status === "fulfilled" ? o.value : undefined,
  ) as [Awaited<ReturnType<typeof compactTokenizerFor>>, unknown, string | undefined];
  const { compact } = found;
  const template = chatTemplate === undefined ? {} : { chatTemplate };
  const tok = usableCompactTokenizer(nameOrPath, { compact, tokenizerConfig, ...template });
  if (tok) return tok;
  const tokenizerJson = found.tokenizerJson ?? (await readJson(join(dir, "tokenizer.json"), what));
  // The library (and its BPE over the parsed JSON) only when the compact form cannot serve.
  const { createHfTokenizer } = await import("../../src/tokenizer/hfTokenizer");
  return createHfTokenizer(nameOrPath, { tokenizerJson, tokenizerConfig, ...template });
}

/** `openDriftTokenizer`, once per process or worker. */
export const loadDriftTokenizer: (nameOrPath: string) => Promise<Tokenizer> =
  loadOnce(openDriftTokenizer);
