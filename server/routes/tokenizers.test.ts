import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { tokenizerListSchema } from "../../src/core/tokenizer/wire";
import { parseServerConfig } from "../config";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { installedOptionalTokenizers } from "../tokenizers/loadTokenizer";
import { tokenizerRoutes } from "./tokenizers";

const FIXTURE = "src/test/fixtures/sentencepiece-tiny";

describe("GET /api/tokenizers", () => {
  it.each([
    ["bundled default", "qwen3", "qwen3", []],
    [
      "a model folder path",
      FIXTURE,
      "sentencepiece-tiny",
      [{ name: "sentencepiece-tiny", source: "path" }],
    ],
    [
      "a folder named like a bundled one",
      "/models/qwen3",
      "qwen3-local",
      [{ name: "qwen3-local", source: "path" }],
    ],
  ])("lists the tokenizers with %s", async (_name, tokenizer, expectedDefault, extra) => {
    const app = new Hono().route(
      "/api/tokenizers",
      tokenizerRoutes(parseServerConfig({ tokenizer })),
    );
    const res = await app.request("/api/tokenizers");
    expect(res.status).toBe(200);
    expect(tokenizerListSchema.parse(await res.json())).toEqual({
      default: expectedDefault,
      tokenizers: [
        { name: "qwen3", source: "bundled" },
        { name: "llama3", source: "bundled" },
        // The optional families are dev dependencies, so installed here.
        ...["llama3_1", "deepseek_v3", "gptoss", "gemma3"].map((name) => ({
          name,
          source: "bundled",
        })),
        ...extra,
      ],
    });
  });
});

describe("the tokenizer catalog", () => {
  it("lists an optional family only when its package is installed", () => {
    expect(installedOptionalTokenizers()).toEqual(["llama3_1", "deepseek_v3", "gptoss", "gemma3"]);
    const lean = buildTokenizerCatalog("qwen3", []);
    expect(lean.list.tokenizers.map((t) => t.name)).toEqual(["qwen3", "llama3"]);
    expect(lean.resolve("gptoss")).toBeUndefined();
    expect(buildTokenizerCatalog("qwen3", ["gptoss"]).resolve("gptoss")).toBe("gptoss");
  });
});

describe("GET /api/tokenizers/:name/:file", () => {
  const app = new Hono().route(
    "/api/tokenizers",
    tokenizerRoutes(parseServerConfig({ tokenizer: FIXTURE })),
  );

  it.each([
    ["sentencepiece-tiny", "tokenizer.json", `${FIXTURE}/tokenizer.json`, "application/json"],
    [
      "sentencepiece-tiny",
      "tokenizer_config.json",
      `${FIXTURE}/tokenizer_config.json`,
      "application/json",
    ],
    ["sentencepiece-tiny", "chat_template.jinja", `${FIXTURE}/chat_template.jinja`, "text/plain"],
  ])("serves %s/%s byte for byte", async (name, file, path, type) => {
    const res = await app.request(`/api/tokenizers/${name}/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain(type);
    expect(await res.text()).toBe(readFileSync(path, "utf8"));
  });

  it("serves the bundled Qwen3 config", async () => {
    const res = await app.request("/api/tokenizers/qwen3/tokenizer_config.json");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ eos_token: "<|im_end|>" });
  });

  it.each([
    ["an unknown name", "/api/tokenizers/gpt2/tokenizer.json", /unknown tokenizer: gpt2/],
    [
      "an encoded traversal in the name",
      "/api/tokenizers/..%2F..%2Fetc/tokenizer.json",
      /unknown tokenizer/,
    ],
    ["a dot-dot name", "/api/tokenizers/../tokenizer.json", /.*/],
    [
      "a file outside the list",
      "/api/tokenizers/qwen3/package.json",
      /not a tokenizer file: package.json/,
    ],
    [
      "an encoded traversal in the file",
      "/api/tokenizers/qwen3/..%2F..%2Fpackage.json",
      /not a tokenizer file/,
    ],
  ])("refuses %s with 404", async (_name, url, message) => {
    const res = await app.request(url);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(message);
  });

  it("answers a missing optional chat_template.jinja with 204 and no body, not an error", async () => {
    const res = await app.request("/api/tokenizers/qwen3/chat_template.jinja");
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});
