import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { parseServerConfig } from "../../server/config";
import { tokenizerRoutes } from "../../server/routes/tokenizers";
import { loadTokenizer } from "../../test-support/tokenizers";
import { loadDriftTokenizerInBrowser, loadTokenizerInBrowser } from "./loadTokenizerInBrowser";

const app = new Hono().route(
  "/api/tokenizers",
  tokenizerRoutes(parseServerConfig({ tokenizer: "src/test/fixtures/sentencepiece-tiny" })),
);
const viaServer = async (url: string) => app.request(url);

describe("loadTokenizerInBrowser", () => {
  it.each([["qwen3"], ["sentencepiece-tiny"]])(
    "%s from the server encodes and renders like the Node loader",
    async (name) => {
      const source = name === "qwen3" ? "qwen3" : "src/test/fixtures/sentencepiece-tiny";
      const [browser, node] = await Promise.all([
        loadTokenizerInBrowser(name, viaServer),
        loadTokenizer(source),
      ]);
      const text = "hello world 😀 <|im_end|>";
      expect(browser.encode(text)).toEqual(node.encode(text));
      const messages = [{ role: "user", content: "hi" }];
      expect(browser.applyChatTemplate(messages, { addGenerationPrompt: true })).toBe(
        node.applyChatTemplate(messages, { addGenerationPrompt: true }),
      );
      expect([browser.id, browser.vocabSize]).toEqual([name, node.vocabSize]);
    },
  );

  it.each([
    [
      "an unknown name",
      viaServer,
      /tokenizer nope: GET \/api\/tokenizers\/nope\/tokenizer.json answered 404/,
    ],
    [
      "a network failure",
      async () => {
        throw new TypeError("fetch failed");
      },
      /tokenizer nope: GET \/api\/tokenizers\/nope\/tokenizer.json failed: fetch failed/,
    ],
    [
      "a file that is not JSON",
      async () => new Response("<html>", { status: 200 }),
      /tokenizer nope: tokenizer.json is not valid JSON/,
    ],
  ])("reports %s with the tokenizer and URL", async (_name, fetchImpl, message) => {
    await expect(loadTokenizerInBrowser("nope", fetchImpl)).rejects.toThrow(message);
  });
});

describe("loadDriftTokenizerInBrowser", () => {
  it("loads the compact form the server publishes, never tokenizer.json, for a bundled tokenizer", async () => {
    const asked: string[] = [];
    const spy = async (url: string) => {
      asked.push(url.split("/").pop() ?? "");
      return app.request(url);
    };
    const [browser, node] = await Promise.all([
      loadDriftTokenizerInBrowser("llama3", spy),
      loadTokenizer("llama3"),
    ]);
    expect(asked.sort()).toEqual(["chat_template.jinja", "compact", "tokenizer_config.json"]);
    const text = "<|begin_of_text|>It's 12345 cafés 😀<|eot_id|>";
    expect(browser.encode(text)).toEqual(node.encode(text));
    expect(browser.decode(node.encode(text))).toBe(node.decode(node.encode(text)));
    const messages = [{ role: "user", content: "hi" }];
    expect(browser.applyChatTemplate(messages, { addGenerationPrompt: true })).toBe(
      node.applyChatTemplate(messages, { addGenerationPrompt: true }),
    );
  }, 60_000);

  it("falls back to the library tokenizer when the compact form cannot serve, or is not there", async () => {
    const sp = await loadDriftTokenizerInBrowser("sentencepiece-tiny", viaServer);
    const node = await loadTokenizer("src/test/fixtures/sentencepiece-tiny");
    expect(sp.encode("hello world")).toEqual(node.encode("hello world"));
    const noCompact = async (url: string) =>
      url.endsWith("/compact") ? new Response("", { status: 404 }) : app.request(url);
    const qwen = await loadDriftTokenizerInBrowser("qwen3", noCompact);
    expect(qwen.encode("<|im_start|>hi")).toEqual(
      (await loadTokenizer("qwen3")).encode("<|im_start|>hi"),
    );
  }, 60_000);
});
