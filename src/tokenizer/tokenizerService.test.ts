import { describe, expect, it } from "vitest";
import type { Tokenizer } from "../core/tokenizer/types";
import { createFakeTokenizer } from "../test/fakeTokenizer";
import type { TokenizerResponse } from "./tokenizerProtocol";
import { createTokenizerService } from "./tokenizerService";

describe("tokenizerService.serve", () => {
  it("answers requests that waited for one load in their order, each before the next op runs", async () => {
    const fake = createFakeTokenizer();
    const log: string[] = [];
    // A slow op (the turn check encodes text): its start is logged.
    const tokenizer: Tokenizer = {
      ...fake,
      encode: (text) => {
        log.push("encode runs");
        return fake.encode(text);
      },
    };
    let finishLoad: (tok: Tokenizer) => void = () => {};
    const loading = new Promise<Tokenizer>((resolve) => (finishLoad = resolve));
    const service = createTokenizerService(() => loading);
    const replies: TokenizerResponse[] = [];
    const reply = (response: TokenizerResponse) => {
      log.push(`reply ${response.id}`);
      replies.push(response);
    };
    const ids = Uint32Array.from(fake.encode("Hello world"));
    // The view's pieces are asked for first, an encode right after, both while the tokenizer loads.
    const served = [
      service.serve({ id: 1, type: "pieces", name: "fake", ids }, reply),
      service.serve({ id: 2, type: "encode", name: "fake", text: "Hello world" }, reply),
    ];
    log.length = 0;
    finishLoad(tokenizer);
    await Promise.all(served);
    expect(log).toEqual(["reply 1", "encode runs", "reply 2"]);
    const [pieces, encoded] = replies;
    expect(pieces?.type === "ok" && pieces.result).toMatchObject({ pieces: ["Hello", " world"] });
    expect(encoded?.type === "ok" && [...(encoded.result as Uint32Array)]).toEqual([...ids]);
  });

  it("answers a failed load and a failing op with errors naming why", async () => {
    const service = createTokenizerService(async (name) => {
      if (name !== "fake") throw new Error(`tokenizer ${name}: not on the server`);
      return createFakeTokenizer();
    });
    const replies: TokenizerResponse[] = [];
    await service.serve({ id: 1, type: "load", name: "other" }, (r) => replies.push(r));
    await service.serve(
      { id: 2, type: "pieces", name: "fake", ids: Uint32Array.of(99_999_999) },
      (r) => replies.push(r),
    );
    expect(replies[0]).toEqual({
      id: 1,
      type: "error",
      message: "tokenizer other: not on the server",
    });
    expect(replies[1]).toMatchObject({ id: 2, type: "error" });
    expect(replies[1]?.type === "error" && replies[1].message).toMatch(/99999999/);
  });
});
