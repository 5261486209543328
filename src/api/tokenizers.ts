import { queryOptions } from "@tanstack/react-query";
import { z } from "zod";
import type { TurnReport } from "../core/drift/prefixCheck";
import type { Trajectory } from "../core/trajectory/types";
import { createTokenizerClient, type TokenizerClient } from "../workers/tokenizerClient";
import { getJson } from "./http";

const catalogSchema = z.object({
  default: z.string(),
  tokenizers: z.array(z.object({ name: z.string(), source: z.string() })),
});

/** `GET /api/tokenizers`: the server's tokenizers and its default. */
export type TokenizerCatalog = z.infer<typeof catalogSchema>;

let client: TokenizerClient | undefined;

/** The one long-lived tokenizer worker, started on first use. */
function tokenizerClient(): TokenizerClient {
  client ??= createTokenizerClient();
  return client;
}

/**
 * Starts the tokenizer worker now (its script fetched and evaluated) without loading a tokenizer:
 * a page calls it while it is still reading the trajectory that decides which tokenizer to load.
 */
export function warmTokenizerWorker(): void {
  tokenizerClient();
}

/** A cheap content hash of token ids (FNV-1a over the 32-bit ids), for query keys. */
export function hashIds(ids: readonly number[]): string {
  let h = 0x811c9dc5;
  for (const id of ids) {
    h ^= id;
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16);
}

/** Display pieces of a token sequence with the ids they were computed for. */
export interface PiecesOf {
  readonly tokenIds: readonly number[];
  readonly pieces: readonly string[];
}

export const tokenizerQueries = {
  all: () => ["tokenizers"] as const,
  catalog: () =>
    queryOptions({
      queryKey: [...tokenizerQueries.all(), "catalog"] as const,
      queryFn: ({ signal }) => getJson("/api/tokenizers", catalogSchema, signal),
      staleTime: Number.POSITIVE_INFINITY,
    }),
  /** Loads a tokenizer into the worker (once); its info tells the vocabulary size and EOS ids. */
  load: (name: string) =>
    queryOptions({
      queryKey: [...tokenizerQueries.all(), name, "load"] as const,
      queryFn: () => tokenizerClient().load(name),
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    }),
  /** Byte-correct display pieces from the tokenizer worker; deterministic, so never stale. */
  pieces: (name: string, tokenIds: readonly number[]) =>
    queryOptions({
      queryKey: [
        ...tokenizerQueries.all(),
        name,
        "pieces",
        tokenIds.length,
        hashIds(tokenIds),
      ] as const,
      queryFn: async (): Promise<PiecesOf> => {
        const { pieces } = await tokenizerClient().pieces(name, tokenIds);
        return { tokenIds, pieces };
      },
      staleTime: Number.POSITIVE_INFINITY,
      // An unknown tokenizer stays unknown; the view keeps its `#id` placeholders.
      retry: false,
    }),
  /**
   * Each id's piece on its own (top-k alternatives), all ids of a trajectory in one worker
   * request; `ids` sorted and distinct, so the key names the set.
   */
  idPieces: (name: string, ids: readonly number[]) =>
    queryOptions({
      queryKey: [...tokenizerQueries.all(), name, "idPieces", ids.length, hashIds(ids)] as const,
      queryFn: async (): Promise<ReadonlyMap<number, string>> => {
        const pieces = await tokenizerClient().idPieces(name, ids);
        const byId = new Map<number, string>();
        ids.forEach((id, i) => {
          const piece = pieces[i];
          if (piece !== null && piece !== undefined) byId.set(id, piece);
        });
        return byId;
      },
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    }),
  /**
   * The per-turn prefix check of a trajectory (CLEAN / REALIGN / FORK per model turn), computed in
   * the tokenizer worker; keyed by the trajectory's ids (`idsHash`, `hashIds` of all its ids) and
   * messages, so it is computed once.
   */
  turns: (name: string, trajectory: Trajectory, idsHash: string) =>
    queryOptions({
      queryKey: [
        ...tokenizerQueries.all(),
        name,
        "turns",
        trajectory.id,
        trajectory.segments.length,
        idsHash,
        trajectory.messages?.length ?? 0,
      ] as const,
      queryFn: (): Promise<TurnReport> => tokenizerClient().turns(name, trajectory),
      staleTime: Number.POSITIVE_INFINITY,
      retry: false,
    }),
};
