import { describe, expect, it } from "vitest";
import { controlTokenIds } from "../core/tokenizer/controlTokens";
import { CONTINUATION_MARKER } from "../core/tokenizer/pieces";
import { createFakeTokenizer, FAKE_IM_END } from "../test/fakeTokenizer";
import { tokenizerServicePort } from "../test/tokenizerServicePort";
import { createTokenizerClient } from "./tokenizerClient";

const fake = createFakeTokenizer();
const loadFake = async (name: string) => {
  if (name !== "fake")
    throw new Error(`tokenizer ${name}: GET /api/tokenizers/${name}/tokenizer.json answered 404`);
  return fake;
};

const fakeWorkerPort = () => tokenizerServicePort(loadFake);

describe.each([
  ["through a worker port", () => createTokenizerClient({ port: fakeWorkerPort() })],
  ["on the main thread", () => createTokenizerClient({ port: undefined, load: loadFake })],
])("tokenizerClient %s", (_name, makeClient) => {
  it("loads, encodes, decodes and splits into pieces", async () => {
    const client = makeClient();
    expect(await client.load("fake")).toEqual({
      name: "fake",
      vocabSize: fake.vocabSize,
      eosTokenIds: [...fake.eosTokenIds],
      bosTokenId: undefined,
      controlTokenIds: controlTokenIds(fake),
    });
    const ids = await client.encode("fake", "Hello world<|im_end|>😀");
    expect([...ids]).toEqual([...fake.encode("Hello world<|im_end|>😀")]);
    expect(await client.decode("fake", ids)).toBe("Hello world<|im_end|>😀");
    expect(ids.length).toBeGreaterThan(0); // the caller's array was copied, not transferred away
    const { pieces, byteOffsets } = await client.pieces("fake", ids);
    expect(pieces).toEqual([
      "Hello",
      " world",
      "<|im_end|>",
      CONTINUATION_MARKER,
      CONTINUATION_MARKER,
      CONTINUATION_MARKER,
      "😀",
    ]);
    expect([...byteOffsets]).toEqual([0, 5, 11, 21, 22, 23, 24, 25]);
    expect(ids.includes(FAKE_IM_END)).toBe(true);
  });

  it("decodes many ids, each on its own, in one request", async () => {
    const client = makeClient();
    const ids = [...(await client.encode("fake", "Hello world<|im_end|>😀"))];
    const alone = await client.idPieces("fake", [...ids, fake.vocabSize + 5]);
    // Out of context, the emoji's first byte is no character: its hex, not the continuation mark.
    expect(alone).toEqual(["Hello", " world", "<|im_end|>", "<F0>", "<9F>", "<98>", "<80>", null]);
  });

  it("rejects with the error message, and keeps answering afterwards", async () => {
    const client = makeClient();
    await expect(client.encode("gpt2", "hi")).rejects.toThrow(/tokenizer gpt2: .* answered 404/);
    await expect(client.decode("fake", [fake.vocabSize + 5])).rejects.toThrow(
      /not in the vocabulary/,
    );
    expect(await client.decode("fake", [72, 105])).toBe("Hi");
  });
});
