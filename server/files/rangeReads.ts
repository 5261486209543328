import { constants, type FileHandle, open } from "node:fs/promises";
import { type RegisteredFile, servedPath } from "./fileRegistry";

/*
 * Byte ranges of served files, bounded: at most `maxInFlight` ranges are read at once (the next
 * one is told to retry with a Retry-After), and each range streams in chunks of at most
 * RANGE_CHUNK_BYTES with the client's backpressure, so a range costs the server one chunk of
 * memory however large it is and however slowly it is read. 200 concurrent 16 MiB reads used to
 * hold 3.4 GB; now they hold at most `maxInFlight` chunks.
 */

/** Bytes read from disk per step of a range's stream. */
export const RANGE_CHUNK_BYTES = 1024 * 1024;

/** Why a range read was refused, with the HTTP status, the sentence and the Retry-After (s). */
export interface RangeRefusal {
  readonly status: 429;
  readonly error: string;
  readonly retryAfterSeconds: number;
}

/**
 * Counts range reads in flight (from the request until its body is sent, cancelled or failed).
 * A read past the cap is refused, not queued: a queue would hold sockets and grow without bound.
 */
export class RangeGate {
  #inFlight = 0;

  constructor(
    readonly maxInFlight: number,
    readonly retryAfterSeconds = 1,
  ) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Takes a slot; returns its release function (idempotent), or a refusal naming the cap. */
  enter(): { ok: true; release: () => void } | ({ ok: false } & RangeRefusal) {
    if (this.#inFlight >= this.maxInFlight) {
      return {
        ok: false,
        status: 429,
        error: `${this.maxInFlight} byte-range reads are already in flight (the server's cap, --max-range-reads); retry after ${this.retryAfterSeconds} s`,
        retryAfterSeconds: this.retryAfterSeconds,
      };
    }
    this.#inFlight++;
    let isReleased = false;
    return {
      ok: true,
      release: () => {
        if (isReleased) return;
        isReleased = true;
        this.#inFlight--;
      },
    };
  }
}

/** An opened range: its length in bytes and a stream of exactly those bytes (fewer if cut). */
export interface RangeBody {
  readonly length: number;
  readonly stream: ReadableStream<Uint8Array>;
}

/**
 * Opens bytes [start, end) of the served file (servedPath; fewer when the file is shorter) as a
 * stream read chunk by chunk as the client takes them. `onDone` runs once, when the stream ends,
 * fails or is cancelled (a client that went away), or when opening fails.
 */
export async function openRange(
  file: RegisteredFile,
  start: number,
  end: number,
  onDone: () => void,
): Promise<RangeBody> {
  let handle: FileHandle | undefined;
  try {
    // O_NOFOLLOW: a link swapped in after the check is refused, not followed.
    handle = await open(await servedPath(file), constants.O_RDONLY | constants.O_NOFOLLOW);
    const { size } = await handle.stat();
    const length = Math.max(0, Math.min(end, size) - start);
    return { length, stream: rangeStream(handle, start, length, onDone) };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    onDone();
    throw error;
  }
}

function rangeStream(
  handle: FileHandle,
  start: number,
  length: number,
  onDone: () => void,
): ReadableStream<Uint8Array> {
  let sent = 0;
  let isClosed = false;
  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    await handle.close().catch(() => undefined);
    onDone();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const want = Math.min(RANGE_CHUNK_BYTES, length - sent);
          const chunk = new Uint8Array(want);
          const { bytesRead } =
            want > 0 ? await handle.read(chunk, 0, want, start + sent) : { bytesRead: 0 };
          sent += bytesRead;
          // A file cut shorter while it was read ends the range early rather than padding it.
          if (bytesRead > 0)
            controller.enqueue(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
          if (bytesRead === 0 || sent >= length) {
            await close();
            controller.close();
          }
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: close,
    },
    // One chunk queued ahead at most: memory per range stays one or two chunks.
    { highWaterMark: 1 },
  );
}
