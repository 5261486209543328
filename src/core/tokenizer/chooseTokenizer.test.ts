import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { chooseTokenizer, chooseTokenizerFor, leadingIds, signatureOfIds } from "./chooseTokenizer";

const BUNDLED = ["qwen3", "llama3"];
const LLAMA_START = [128000, 128006, 882, 128007];
const QWEN_START = [151644, 8948, 198];

describe("chooseTokenizer", () => {
  it.each([
    {
      why: "the user's pick wins over everything",
      input: { picked: "qwen3", recorded: ["llama3"], firstIds: LLAMA_START },
      out: { name: "qwen3", reason: "picked" },
    },
    {
      why: "a record naming a catalog tokenizer",
      input: { recorded: ["llama3"], firstIds: QWEN_START },
      out: { name: "llama3", reason: "recorded" },
    },
    {
      why: "a HF model id of a known family",
      input: { recorded: ["Qwen/Qwen3-4B"], firstIds: [] },
      out: { name: "qwen3", reason: "recorded" },
    },
    {
      why: "a Llama 3.1 model id without the llama3_1 tokenizer: Llama 3's, and the reason says so",
      input: { recorded: ["meta-llama/Llama-3.1-8B-Instruct"], firstIds: [] },
      out: { name: "llama3", reason: "recorded-related" },
    },
    {
      why: "the model field when the tokenizer field is absent",
      input: { recorded: [undefined, "meta-llama/Meta-Llama-3-8B"], firstIds: [] },
      out: { name: "llama3", reason: "recorded" },
    },
    {
      why: "Llama-3 ids in a file that names nothing (atropos)",
      input: { recorded: [undefined, undefined], firstIds: LLAMA_START },
      out: { name: "llama3", reason: "ids" },
    },
    {
      why: "Qwen ids",
      input: { recorded: [], firstIds: QWEN_START },
      out: { name: "qwen3", reason: "ids" },
    },
    {
      why: "an unknown record name falls through to the ids",
      input: { recorded: ["my-org/secret-model"], firstIds: LLAMA_START },
      out: { name: "llama3", reason: "ids" },
    },
    {
      why: "nothing to go on: the server's default",
      input: { recorded: [], firstIds: [1, 2, 3] },
      out: { name: "qwen3", reason: "default" },
    },
    {
      why: "a signature id past the template's first tokens is not a signature",
      input: { recorded: [], firstIds: [1, 2, 3, 4, 5, 6, 7, 8, 128000] },
      out: { name: "qwen3", reason: "default" },
    },
  ])("$why", ({ input, out }) => {
    expect(
      chooseTokenizer({
        picked: "picked" in input ? input.picked : undefined,
        recorded: input.recorded,
        firstIds: input.firstIds,
        names: BUNDLED,
        fallback: "qwen3",
      }),
    ).toEqual(out);
  });

  it("a local folder of the family (the server's default) wins over the bundled one", () => {
    const names = ["qwen3", "llama3", "Qwen3-4B"];
    expect(
      chooseTokenizer({
        picked: undefined,
        recorded: [],
        firstIds: QWEN_START,
        names,
        fallback: "Qwen3-4B",
      }),
    ).toEqual({ name: "Qwen3-4B", reason: "ids" });
    // A record naming the folder by path finds it by its base name.
    expect(
      chooseTokenizer({
        picked: undefined,
        recorded: ["/models/Qwen3-4B"],
        firstIds: [],
        names,
        fallback: "Qwen3-4B",
      }),
    ).toEqual({ name: "Qwen3-4B", reason: "recorded" });
  });

  it("a family the server has no tokenizer for falls back to the default", () => {
    expect(
      chooseTokenizer({
        picked: undefined,
        recorded: [],
        firstIds: LLAMA_START,
        names: ["qwen3"],
        fallback: "qwen3",
      }),
    ).toEqual({ name: "qwen3", reason: "default" });
  });
});

describe("chooseTokenizerFor", () => {
  const context = { picked: undefined, names: BUNDLED, fallback: "qwen3" };

  it("reads the first ids across segments (a prompt shorter than the window)", () => {
    const t = trajectory([promptSegment([128000, 128006]), modelSegment([1, 2, 3, 4, 5, 6, 7], 1)]);
    expect(leadingIds(t)).toEqual([128000, 128006, 1, 2, 3, 4, 5, 6]);
    expect(chooseTokenizerFor(t, context)).toEqual({ name: "llama3", reason: "ids" });
  });

  it("maps a Llama 3.1 model id to llama3_1 when that tokenizer is installed", () => {
    const choice = chooseTokenizer({
      picked: undefined,
      recorded: [undefined, "meta-llama/Llama-3.1-8B-Instruct"],
      firstIds: LLAMA_START,
      names: [...BUNDLED, "llama3_1"],
      fallback: "qwen3",
    });
    expect(choice).toEqual({ name: "llama3_1", reason: "recorded" });
    // A Llama 3 model id stays on llama3 even when llama3_1 is installed.
    expect(
      chooseTokenizer({
        picked: undefined,
        recorded: ["meta-llama/Meta-Llama-3-8B-Instruct"],
        firstIds: [],
        names: [...BUNDLED, "llama3_1"],
        fallback: "qwen3",
      }),
    ).toEqual({ name: "llama3", reason: "recorded" });
  });

  it.each([
    ["gptoss", [200006, 17360, 200008, 3575]],
    ["gemma3", [2, 105, 2364, 107]],
    ["deepseek_v3", [0, 128803, 3085, 344]],
    ["deepseek_v3", [0, 14885, 270, 17612, 16, 128803, 3085]],
  ])("recognises %s from how its ids start, when it is installed", (family, ids) => {
    const names = [...BUNDLED, "deepseek_v3", "gptoss", "gemma3"];
    const pick = (firstIds: number[], among: string[]) =>
      chooseTokenizer({
        picked: undefined,
        recorded: [],
        firstIds,
        names: among,
        fallback: "qwen3",
      });
    expect(pick(ids, names)).toEqual({ name: family, reason: "ids" });
    // Not installed: the default, not a wrong family.
    expect(pick(ids, BUNDLED)).toEqual({ name: "qwen3", reason: "default" });
  });

  it("needs the whole start: ordinary ids 0, 2 or 105 alone name no family", () => {
    for (const ids of [
      [0, 5, 6],
      [2, 3, 105],
      [7, 105, 2],
      [0, 1, 2, 3, 4, 5, 6, 7, 128803],
    ]) {
      expect(signatureOfIds(ids)).toBeUndefined();
    }
  });

  it("prefers the record's model over the ids, and takes the default with no trajectory", () => {
    const t = trajectory([promptSegment(LLAMA_START)], { model: "Qwen/Qwen3-8B" });
    expect(chooseTokenizerFor(t, context)).toEqual({ name: "qwen3", reason: "recorded" });
    expect(chooseTokenizerFor(undefined, context)).toEqual({ name: "qwen3", reason: "default" });
  });

  it("finds where a signature id sits", () => {
    expect(signatureOfIds([5, 151644])).toEqual({
      family: "qwen3",
      id: 151644,
      text: "<|im_start|>",
      index: 1,
    });
    expect(signatureOfIds([5, 6])).toBeUndefined();
  });
});
