import { describe, expect, it } from "vitest";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createTokenizerPicker } from "./tokenizerPick";

describe("the simulator's tokenizer per request", () => {
  const LLAMA_HEADER = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n";

  it("serves each request by its first ids' family, Llama 3.1 where the prompt has the ipython environment", async () => {
    const qwen3 = await loadTokenizer("qwen3");
    const llama3 = await loadTokenizer("llama3");
    const pick = createTokenizerPicker({
      tokenizer: qwen3,
      tokenizerName: "qwen3",
      isForced: false,
    });
    expect(await pick(qwen3.encode("<|im_start|>user\nhi<|im_end|>\n"))).toBe(qwen3);
    expect((await pick(llama3.encode(`${LLAMA_HEADER}Be brief.<|eot_id|>`))).family).toBe("llama3");
    const withTools = llama3.encode(`${LLAMA_HEADER}Environment: ipython\n\n<|eot_id|>`);
    expect((await pick(withTools)).family).toBe("llama3_1");
    // A text prompt (no ids) and ids of no known family: the default.
    expect(await pick([])).toBe(qwen3);
    expect(await pick([1, 2, 3])).toBe(qwen3);
  }, 60_000);

  it("serves every request with a forced tokenizer", async () => {
    const qwen3 = await loadTokenizer("qwen3");
    const llama3 = await loadTokenizer("llama3");
    const pick = createTokenizerPicker({
      tokenizer: qwen3,
      tokenizerName: "qwen3",
      isForced: true,
    });
    expect(await pick(llama3.encode(`${LLAMA_HEADER}hi<|eot_id|>`))).toBe(qwen3);
  }, 60_000);
});
