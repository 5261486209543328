import { type TurnReport, turnCheckInput } from "../core/drift/prefixCheck";
import type { Trajectory } from "../core/trajectory/types";
import type {
  OpOf,
  PiecesResult,
  TokenizerInfo,
  TokenizerOpResult,
  TokenizerOpType,
  TokenizerRequest,
  TokenizerResponse,
} from "../tokenizer/tokenizerProtocol";
import { type TokenizerBackedOptions, tokenizerBackedRpc } from "./tokenizerBacked";
import { type WorkerPort as RpcPort, workerPort } from "./workerRpc";

/** What the client needs from a worker; `startTokenizerWorker` adapts a real one, tests pass a fake. */
export type WorkerPort = RpcPort<TokenizerRequest, TokenizerResponse>;

export interface TokenizerClient {
  load(name: string): Promise<TokenizerInfo>;
  encode(name: string, text: string): Promise<Uint32Array>;
  decode(name: string, ids: ArrayLike<number>): Promise<string>;
  pieces(name: string, ids: ArrayLike<number>): Promise<PiecesResult>;
  /** Each id's piece on its own, in one request (`null`: not in the vocabulary). */
  idPieces(name: string, ids: ArrayLike<number>): Promise<(string | null)[]>;
  /** The per-turn prefix check of a trajectory, computed in the worker. */
  turns(name: string, trajectory: Trajectory): Promise<TurnReport>;
  dispose(): void;
}

/** A tokenizer worker, or undefined where workers are unavailable. */
export function startTokenizerWorker(): WorkerPort | undefined {
  return workerPort(
    () => new Worker(new URL("./tokenizer.worker.ts", import.meta.url), { type: "module" }),
    "tokenizer",
  );
}

export type TokenizerClientOptions = TokenizerBackedOptions<TokenizerRequest, TokenizerResponse>;

/**
 * Promise API over the tokenizer worker. Without Worker support (or with `port: undefined`) the
 * same service runs on the main thread.
 */
export function createTokenizerClient(
  options: TokenizerClientOptions = { port: startTokenizerWorker() },
): TokenizerClient {
  const rpc = tokenizerBackedRpc<TokenizerRequest, TokenizerResponse>(
    "tokenizer",
    options,
    async (load) => {
      const service = (await import("../tokenizer/tokenizerService")).createTokenizerService(load);
      return (request, reply) => void service.serve(request, reply);
    },
  );
  const send = <T extends TokenizerOpType>(op: OpOf<T>): Promise<TokenizerOpResult[T]> =>
    rpc.request(
      (id): TokenizerRequest => ({ ...op, id }),
      // The result is typed by the op that was sent; the worker answers in kind.
      (response, settle: (value: TokenizerOpResult[T]) => void) => {
        if (response.type === "ok") settle(response.result as TokenizerOpResult[T]);
      },
      { transfer: "ids" in op ? [op.ids.buffer] : [] },
    );
  return {
    load: (name) => send({ type: "load", name }),
    encode: (name, text) => send({ type: "encode", name, text }),
    // Copy the ids: the copy's buffer is transferred, the caller's array stays usable.
    decode: (name, ids) => send({ type: "decode", name, ids: Uint32Array.from(ids) }),
    pieces: (name, ids) => send({ type: "pieces", name, ids: Uint32Array.from(ids) }),
    idPieces: (name, ids) => send({ type: "idPieces", name, ids: Uint32Array.from(ids) }),
    // Only what the check reads is cloned to the worker (no logprobs, top-k or texts).
    turns: (name, trajectory) =>
      send({ type: "turns", name, trajectory: turnCheckInput(trajectory) }),
    dispose: () => rpc.dispose(),
  };
}
