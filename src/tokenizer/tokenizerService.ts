import { checkTurnPrefixes } from "../core/drift/prefixCheck";
import { loadOnce } from "../core/loadOnce";
import { controlTokenIds } from "../core/tokenizer/controlTokens";
import { byteOffsets, displayPieces, pieceOfEachId } from "../core/tokenizer/pieces";
import type { Tokenizer } from "../core/tokenizer/types";
import type {
  OpOf,
  TokenizerOp,
  TokenizerOpResult,
  TokenizerOpType,
  TokenizerRequest,
  TokenizerResponse,
} from "./tokenizerProtocol";

/**
 * Keeps each tokenizer loaded once and answers protocol ops. The worker wraps it; the client runs
 * it directly on the main thread when workers are unavailable.
 */
export function createTokenizerService(load: (name: string) => Promise<Tokenizer>) {
  const get = loadOnce(load);

  /** The op's result, computed at once (its tokenizer loaded). */
  function runOn<T extends TokenizerOpType>(tok: Tokenizer, op: OpOf<T>): TokenizerOpResult[T];
  function runOn(tok: Tokenizer, op: TokenizerOp): TokenizerOpResult[TokenizerOpType] {
    switch (op.type) {
      case "load":
        return {
          name: op.name,
          vocabSize: tok.vocabSize,
          eosTokenIds: [...tok.eosTokenIds],
          bosTokenId: tok.bosTokenId,
          controlTokenIds: controlTokenIds(tok),
        };
      case "encode":
        return Uint32Array.from(tok.encode(op.text));
      case "decode":
        return tok.decode(Array.from(op.ids));
      case "pieces":
        return {
          pieces: displayPieces(op.ids, (id) => tok.tokenBytes(id)),
          byteOffsets: byteOffsets(op.ids, (id) => tok.tokenBytes(id)),
        };
      case "idPieces":
        return pieceOfEachId(op.ids, (id) => tok.tokenBytes(id));
      case "turns":
        return checkTurnPrefixes(op.trajectory, tok);
      default: {
        const never: never = op;
        throw new Error(`unknown tokenizer op ${JSON.stringify(never)}`);
      }
    }
  }

  const failed = (request: TokenizerRequest, error: unknown): TokenizerResponse => ({
    id: request.id,
    type: "error",
    message: error instanceof Error ? error.message : String(error),
  });

  /**
   * Answers one request through `reply`, in the same task as the op's work: requests waiting for
   * one tokenizer's load then run and answer in the order they came, each answer sent before the
   * next op starts (the view's pieces do not wait behind a slower turn check asked for after
   * them). Never throws: failures become `error` responses.
   */
  async function serve(
    request: TokenizerRequest,
    reply: (response: TokenizerResponse) => void,
  ): Promise<void> {
    let tok: Tokenizer;
    try {
      tok = await get(request.name);
    } catch (error) {
      reply(failed(request, error));
      return;
    }
    let response: TokenizerResponse;
    try {
      response = { id: request.id, type: "ok", result: runOn(tok, request) };
    } catch (error) {
      response = failed(request, error);
    }
    reply(response);
  }

  /** `serve` as a promise of the response. */
  function handle(request: TokenizerRequest): Promise<TokenizerResponse> {
    return new Promise((resolve) => void serve(request, resolve));
  }

  return { serve, handle };
}

/** The typed arrays inside a response, to transfer rather than copy. */
export function transferablesOf(response: TokenizerResponse): ArrayBuffer[] {
  if (response.type !== "ok") return [];
  const { result } = response;
  if (result instanceof Uint32Array) return [result.buffer];
  if (typeof result === "object" && "byteOffsets" in result) return [result.byteOffsets.buffer];
  return [];
}
