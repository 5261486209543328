import type { TurnReport } from "../core/drift/prefixCheck";
import type { Trajectory } from "../core/trajectory/types";

/**
 * Messages between `tokenizerClient` and `tokenizer.worker`. Every request carries an id; the
 * answer carries the same id and is either `ok` with the op's result or `error` with a message.
 * Token ids travel as Uint32Array so they can be transferred instead of cloned.
 */

export interface TokenizerInfo {
  readonly name: string;
  readonly vocabSize: number;
  readonly eosTokenIds: readonly number[];
  readonly bosTokenId: number | undefined;
  /** Ids the tokenizer lists as added or special: the view's chips (core/tokenizer/controlTokens.ts). */
  readonly controlTokenIds: readonly number[];
}

export interface PiecesResult {
  /** Display string per token index (see core/tokenizer/pieces.ts). */
  readonly pieces: string[];
  /** Byte offset of each token start, plus the total at the end. */
  readonly byteOffsets: Uint32Array<ArrayBuffer>;
}

export type TokenizerOp =
  | { readonly type: "load"; readonly name: string }
  | { readonly type: "encode"; readonly name: string; readonly text: string }
  | { readonly type: "decode"; readonly name: string; readonly ids: Uint32Array<ArrayBuffer> }
  | { readonly type: "pieces"; readonly name: string; readonly ids: Uint32Array<ArrayBuffer> }
  /** Each id's piece on its own (`pieceOfEachId`): top-k alternatives, decoded in one batch. */
  | { readonly type: "idPieces"; readonly name: string; readonly ids: Uint32Array<ArrayBuffer> }
  /** The per-turn prefix check (core/drift/prefixCheck.ts) of `turnCheckInput(trajectory)`. */
  | { readonly type: "turns"; readonly name: string; readonly trajectory: Trajectory };

export type TokenizerOpType = TokenizerOp["type"];
/** The op of one type, e.g. `OpOf<"encode">`. */
export type OpOf<T extends TokenizerOpType> = Extract<TokenizerOp, { readonly type: T }>;

/** What each op resolves to. */
export interface TokenizerOpResult {
  readonly load: TokenizerInfo;
  readonly encode: Uint32Array<ArrayBuffer>;
  readonly decode: string;
  readonly pieces: PiecesResult;
  /** One piece per id asked, `null` for an id outside the vocabulary. */
  readonly idPieces: (string | null)[];
  readonly turns: TurnReport;
}

export type TokenizerRequest = TokenizerOp & { readonly id: number };

export type TokenizerResponse =
  | {
      readonly id: number;
      readonly type: "ok";
      readonly result: TokenizerOpResult[TokenizerOpType];
    }
  | { readonly id: number; readonly type: "error"; readonly message: string };
