import type { Tokenizer } from "../core/tokenizer/types";
import type {
  OpOf,
  PiecesResult,
  TokenizerInfo,
  TokenizerOpResult,
  TokenizerOpType,
  TokenizerRequest,
  TokenizerResponse,
} from "../tokenizer/tokenizerProtocol";

/** What the client needs from a worker; `startWorker` adapts a real one, tests pass a fake. */
export interface WorkerPort {
  post(request: TokenizerRequest, transfer: ArrayBuffer[]): void;
  listen(
    onResponse: (response: TokenizerResponse) => void,
    onCrash: (reason: string) => void,
  ): void;
  terminate(): void;
}

export interface TokenizerClient {
  load(name: string): Promise<TokenizerInfo>;
  encode(name: string, text: string): Promise<Uint32Array>;
  decode(name: string, ids: ArrayLike<number>): Promise<string>;
  pieces(name: string, ids: ArrayLike<number>): Promise<PiecesResult>;
  dispose(): void;
}

async function loadFromServer(name: string): Promise<Tokenizer> {
  const { loadTokenizerInBrowser } = await import("../tokenizer/loadTokenizerInBrowser");
  return loadTokenizerInBrowser(name);
}

function startWorker(): WorkerPort | undefined {
  if (typeof Worker === "undefined") return undefined;
  // Vite bundles the worker because the URL is written inline here.
  const worker = new Worker(new URL("./tokenizer.worker.ts", import.meta.url), { type: "module" });
  return {
    post: (request, transfer) => worker.postMessage(request, transfer),
    listen(onResponse, onCrash) {
      worker.onmessage = (event: MessageEvent<TokenizerResponse>) => onResponse(event.data);
      // Module load failures come with an empty message.
      worker.onerror = (event) => onCrash(event.message || "the worker script failed to run");
      worker.onmessageerror = () => onCrash("a tokenizer worker message could not be read");
    },
    terminate: () => worker.terminate(),
  };
}

export interface TokenizerClientOptions {
  /** The worker to talk to; undefined runs the service on the main thread. */
  readonly port: WorkerPort | undefined;
  /** How the main-thread fallback loads a tokenizer (default: from our server). */
  readonly load?: (name: string) => Promise<Tokenizer>;
}

/**
 * Promise API over the tokenizer worker. Without Worker support (or with `port: undefined`) the
 * same service runs on the main thread.
 */
export function createTokenizerClient(
  options: TokenizerClientOptions = { port: startWorker() },
): TokenizerClient {
  const { port, load = loadFromServer } = options;
  let send: <T extends TokenizerOpType>(op: OpOf<T>) => Promise<TokenizerOpResult[T]>;
  let dispose = () => {};

  if (port) {
    let nextId = 1;
    let crash: string | undefined;
    const pending = new Map<
      number,
      { resolve: (value: unknown) => void; reject: (error: Error) => void }
    >();
    port.listen(
      (response) => {
        const waiter = pending.get(response.id);
        if (!waiter) return;
        pending.delete(response.id);
        if (response.type === "ok") waiter.resolve(response.result);
        else waiter.reject(new Error(response.message));
      },
      (reason) => {
        // A crashed worker cannot answer: fail every open and later request instead of hanging.
        crash = `tokenizer worker failed: ${reason}`;
        for (const waiter of pending.values()) waiter.reject(new Error(crash));
        pending.clear();
      },
    );
    send = (op) =>
      new Promise((resolve, reject) => {
        if (crash !== undefined) return reject(new Error(crash));
        const id = nextId++;
        // The resolver is typed by the op that was sent; the worker answers in kind.
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        const request: TokenizerRequest = { ...op, id };
        port.post(request, "ids" in op ? [op.ids.buffer] : []);
      });
    dispose = () => port.terminate();
  } else {
    // Loaded on first use so the main bundle does not carry the tokenizer libraries when the
    // worker (which has its own copy) is available.
    const service = import("../tokenizer/tokenizerService").then((m) =>
      m.createTokenizerService(load),
    );
    send = async (op) => (await service).run(op);
  }

  return {
    load: (name) => send({ type: "load", name }),
    encode: (name, text) => send({ type: "encode", name, text }),
    // Copy the ids: the copy's buffer is transferred, the caller's array stays usable.
    decode: (name, ids) => send({ type: "decode", name, ids: Uint32Array.from(ids) }),
    pieces: (name, ids) => send({ type: "pieces", name, ids: Uint32Array.from(ids) }),
    dispose,
  };
}
