import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { tokenizerQueries } from "../../api/tokenizers";
import { promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { driftPrefsActions } from "./driftPrefsStore";
import { prefetchRecordedPieces } from "./useRecordedPieces";

// Llama-3's template start: the ids name the family (core/tokenizer/chooseTokenizer.ts).
const row = trajectory([promptSegment([128000, 128006, 882, 128007, 271, 9906])]);
const ids = row.segments.flatMap((s) => s.tokenIds);

function clientWithCatalog(): QueryClient {
  const queryClient = new QueryClient();
  queryClient.setQueryData(tokenizerQueries.catalog().queryKey, {
    default: "qwen3",
    tokenizers: [
      { name: "qwen3", source: "bundled" },
      { name: "llama3", source: "bundled" },
    ],
  });
  return queryClient;
}

/** The tokenizer names the cache holds pieces of `ids` for (what the view would read). */
function piecesAskedFor(queryClient: QueryClient): string[] {
  return ["qwen3", "llama3"].filter(
    (name) => queryClient.getQueryState(tokenizerQueries.pieces(name, ids).queryKey) !== undefined,
  );
}

afterEach(() => driftPrefsActions.tokenizerPicked(undefined));

describe("prefetchRecordedPieces", () => {
  it("asks for the pieces under the key the view reads, with the tokenizer it would choose", async () => {
    const queryClient = clientWithCatalog();
    await prefetchRecordedPieces(queryClient, row);
    // The ids' family, not the server's default; the load itself fails here (no server).
    expect(piecesAskedFor(queryClient)).toEqual(["llama3"]);
    const state = queryClient.getQueryState(tokenizerQueries.pieces("llama3", ids).queryKey);
    expect(state?.error?.message).toMatch(/tokenizer llama3/);
  });

  it("follows the user's pick, and asks for nothing for a row without ids", async () => {
    driftPrefsActions.tokenizerPicked("qwen3");
    const queryClient = clientWithCatalog();
    await prefetchRecordedPieces(queryClient, row);
    expect(piecesAskedFor(queryClient)).toEqual(["qwen3"]);
    const empty = clientWithCatalog();
    await prefetchRecordedPieces(empty, trajectory([]));
    expect(empty.getQueryCache().findAll({ queryKey: tokenizerQueries.all() })).toHaveLength(1);
  });
});
