import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  buildCompactTokenizer,
  readCompactTokenizer,
} from "../../src/core/tokenizer/compactFormat";
import { roundTripPlanFor } from "../../src/core/tokenizer/roundTripPlan";
import {
  compactSource,
  openDriftTokenizer,
  servedCompactBlob,
  tokenizerCacheDir,
} from "./compactTokenizers";
import { loadTokenizer, resolveTokenizerDir } from "./loadTokenizer";

const saved = process.env.ROLLOUT_LENS_CACHE_DIR;
let cache = "";
let folder = "";

/** A copy of a tokenizer folder, as a user's model folder. */
function copyOf(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "rollout-lens-tok-")), name);
  cpSync(resolveTokenizerDir(name), dir, { recursive: true });
  return dir;
}

beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), "rollout-lens-cache-"));
  process.env.ROLLOUT_LENS_CACHE_DIR = cache;
});
afterEach(() => {
  if (saved === undefined) delete process.env.ROLLOUT_LENS_CACHE_DIR;
  else process.env.ROLLOUT_LENS_CACHE_DIR = saved;
});

describe("the drift checks' tokenizer for a folder", () => {
  it("is derived on first use, cached, read from the cache next time, and rebuilt when the file changes", async () => {
    folder = copyOf("qwen3");
    const text = "<|im_start|>user\nIt's 12345 cafés<|im_end|> <|IM_END|>";
    const first = await openDriftTokenizer(folder);
    const library = await loadTokenizer("qwen3");
    expect(first.encode(text)).toEqual(library.encode(text));
    expect(roundTripPlanFor(first).path).toBe("fast");
    const files = readdirSync(tokenizerCacheDir());
    expect(files).toHaveLength(1);
    const cached = join(tokenizerCacheDir(), files[0] ?? "");

    // Put a blob derived from an edited tokenizer.json in its place (same source key): the next
    // load reads the cache, not tokenizer.json.
    const json = JSON.parse(readFileSync(join(folder, "tokenizer.json"), "utf8")) as {
      added_tokens: { content: string }[];
    };
    const imEnd = json.added_tokens.find((t) => t.content === "<|im_end|>");
    if (!imEnd) throw new Error("qwen3 has <|im_end|>");
    imEnd.content = "<|IM_END|>";
    writeFileSync(cached, buildCompactTokenizer(json, await compactSource(folder)));
    const fromCache = await openDriftTokenizer(folder);
    expect(fromCache.encode("<|IM_END|>")).toEqual([151645]);

    // Editing tokenizer.json changes its size and times: the stale blob is replaced.
    writeFileSync(
      join(folder, "tokenizer.json"),
      `${readFileSync(join(folder, "tokenizer.json"), "utf8")}\n`,
    );
    const rebuilt = await openDriftTokenizer(folder);
    expect(rebuilt.encode("<|IM_END|>")).toEqual(library.encode("<|IM_END|>"));
    expect(rebuilt.encode(text)).toEqual(library.encode(text));
    expect(readdirSync(tokenizerCacheDir())).toEqual(files);
    expect(statSync(cached).size).toBeGreaterThan(1_000_000);
  }, 120_000);

  it("is the library's tokenizer when the compact form cannot stand in for it, and says so once", async () => {
    const sp = "src/test/fixtures/sentencepiece-tiny";
    const tokenizer = await openDriftTokenizer(sp);
    const library = await loadTokenizer(sp);
    expect(tokenizer.encode("hello world")).toEqual(library.encode("hello world"));
    expect(roundTripPlanFor(tokenizer)).toMatchObject({ path: "exact" });
    // The cache holds the verdict (a header-only blob), not tables.
    const [file] = readdirSync(tokenizerCacheDir());
    expect(statSync(join(tokenizerCacheDir(), file ?? "")).size).toBeLessThan(10_000);
  });

  it("names the missing file of a folder with no tokenizer.json", async () => {
    const empty = mkdtempSync(join(tmpdir(), "rollout-lens-empty-"));
    await expect(openDriftTokenizer(empty)).rejects.toThrow(
      `tokenizer ${empty}: missing file ${join(empty, "tokenizer.json")}`,
    );
  });

  it("still loads when the cache cannot be written", async () => {
    folder = copyOf("llama3");
    const file = join(cache, "not-a-dir");
    writeFileSync(file, "");
    process.env.ROLLOUT_LENS_CACHE_DIR = file;
    const tokenizer = await openDriftTokenizer(folder);
    expect(tokenizer.encode("Hello 12345")).toEqual(
      (await loadTokenizer("llama3")).encode("Hello 12345"),
    );
  }, 60_000);
});

describe("the compact blob served to browsers", () => {
  it("is held once read, and read again when the tokenizer's file changes", async () => {
    folder = copyOf("qwen3");
    const first = await servedCompactBlob(folder);
    // The same bytes, not re-read: the cache file is gone and the held blob still answers.
    for (const file of readdirSync(tokenizerCacheDir())) rmSync(join(tokenizerCacheDir(), file));
    expect(await servedCompactBlob(folder)).toBe(first);
    // An edited tokenizer.json (size and times change) is derived again from the folder.
    writeFileSync(
      join(folder, "tokenizer.json"),
      `${readFileSync(join(folder, "tokenizer.json"), "utf8")}\n`,
    );
    const again = await servedCompactBlob(folder);
    expect(again).not.toBe(first);
    expect(readCompactTokenizer(again).header.source).toEqual(await compactSource(folder));
  });

  it("is not held after a failed read: the next request reports its own error", async () => {
    const empty = mkdtempSync(join(tmpdir(), "rollout-lens-empty-"));
    await expect(servedCompactBlob(empty)).rejects.toThrow(/missing file/);
    await expect(servedCompactBlob(empty)).rejects.toThrow(/missing file/);
  });
});
