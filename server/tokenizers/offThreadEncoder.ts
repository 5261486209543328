import { createLazyWorkerPool, workerUrl } from "../workers/workerPool";

/*
 * Encoding a 1 MB prompt or tool result takes seconds: on the event loop it froze every other
 * request. A text of OFF_THREAD_CHARS or more is encoded on a worker thread holding the
 * same tokenizer files, so the server answers others meanwhile; shorter ones are encoded in place,
 * where a thread hop would cost more than the encoding.
 */

/** Texts this long (UTF-16 units) or longer are encoded on the encoder thread. */
export const OFF_THREAD_CHARS = 32 * 1024;

export interface EncodeRequest {
  /** What loadTokenizer loads: a family's short name or a model folder. */
  readonly tokenizer: string;
  readonly text: string;
}

export interface OffThreadEncoder {
  /** Token ids of `text` with tokenizer `tokenizer` (loadTokenizer's name or folder). */
  encode(tokenizer: string, text: string): Promise<number[]>;
  close(): Promise<void>;
}

/** Encoder threads: the server runs on a couple of cores, and long texts are rare. */
const ENCODER_WORKERS = 1;
/** A tokenizer's heap plus a long text's pieces, with room to spare. */
const ENCODER_MEMORY_LIMIT_MB = 1536;

/** Time for one text: a minute to load the tokenizer, plus 20 s per million characters. */
export function encodeBudgetMs(chars: number): number {
  return 60_000 + Math.ceil(chars / 1_000_000) * 20_000;
}

/**
 * The encoder thread, started on the first long text and kept (holding its tokenizers); unref'd,
 * so an idle server can still exit. A worker that crashes or runs past its budget fails that text
 * with a reason and is replaced.
 */
export function createOffThreadEncoder(): OffThreadEncoder {
  const pool = createLazyWorkerPool<EncodeRequest, Int32Array>({
    name: "tokenizer",
    url: workerUrl("tokenizers", "encode.worker"),
    size: ENCODER_WORKERS,
    resourceLimits: { maxOldGenerationSizeMb: ENCODER_MEMORY_LIMIT_MB },
    unref: true,
  });
  return {
    async encode(tokenizer, text) {
      const label = `encoding ${text.length} characters with ${tokenizer}`;
      const ids = await pool.call(
        { tokenizer, text },
        { label, budgetMs: encodeBudgetMs(text.length) },
      );
      return Array.from(ids);
    },
    close: () => pool.close(),
  };
}
