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

  async function run<T extends TokenizerOpType>(op: OpOf<T>): Promise<TokenizerOpResult[T]>;
  async function run(op: TokenizerOp): Promise<TokenizerOpResult[TokenizerOpType]> {
    const tok = await get(op.name);
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

  /** Answers one request; never throws: failures become `error` responses. */
  async function handle(request: TokenizerRequest): Promise<TokenizerResponse> {
    try {
      return { id: request.id, type: "ok", result: await run(request) };
    } catch (error) {
      return {
        id: request.id,
        type: "error",
        message: error instanceof Error ? error.message : String(error),
      };
    }
  }

  return { run, handle };
}

/** The typed arrays inside a response, to transfer rather than copy. */
export function transferablesOf(response: TokenizerResponse): ArrayBuffer[] {
  if (response.type !== "ok") return [];
  const { result } = response;
  if (result instanceof Uint32Array) return [result.buffer];
  if (typeof result === "object" && "byteOffsets" in result) return [result.byteOffsets.buffer];
  return [];
}
