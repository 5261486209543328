import { Tokenizer as NativeTokenizer } from "tokenizers";
import { describe, expect, it } from "vitest";
import { loadTokenizer, resolveTokenizerDir } from "./loadTokenizer";

describe("loadTokenizer", () => {
  it("loads the bundled Qwen3 tokenizer and agrees with the native HF tokenizer", async () => {
    const tok = await loadTokenizer("qwen3");
    const native = NativeTokenizer.fromFile(`${resolveTokenizerDir("qwen3")}/tokenizer.json`);
    const text = 'Hello <|im_end|>\n<tool_call>\n{"a": 1}\n</tool_call> 😀 日本語';
    const expected = (await native.encode(text, null, { addSpecialTokens: false })).getIds();
    const ids = tok.encode(text);
    expect(ids).toEqual(expected);
    expect(tok.decode(ids)).toBe(text);
    expect(tok.eosTokenIds).toContain(151645);
    expect(tok.isSpecial(151645)).toBe(true);
  });

  it("maps byte-level pieces back to raw UTF-8 bytes", async () => {
    const tok = await loadTokenizer("qwen3");
    const ids = tok.encode("😀");
    const bytes = ids.flatMap((id) => [...tok.tokenBytes(id)]);
    expect(bytes).toEqual([...new TextEncoder().encode("😀")]);
  });

  it("reports a missing folder with its path", async () => {
    await expect(loadTokenizer("/nonexistent/model")).rejects.toThrow(
      /\/nonexistent\/model\/tokenizer/,
    );
  });
});
