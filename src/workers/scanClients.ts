import type { FileRanges, RolloutFileSource } from "./rolloutFileProtocol";
import { createScanClient, type ScanClient } from "./scanClient";
import { scanRangeBytes, scanWorkerCount } from "./scanPool";

/*
 * The browser's one scan pool: scan workers (scan.worker.ts) shared by every file scan, drift
 * and mismatch alike, and how a scan of an open file is cut among them (scanPool.ts runs it).
 */

let client: ScanClient | undefined;

/**
 * The one long-lived scan worker (its own tokenizer copy, loaded once), started on first use: a
 * trajectory's drift checks, and the first worker of every file scan.
 */
export function scanClient(): ScanClient {
  client ??= createScanClient();
  return client;
}

/**
 * Scan workers for file scans (drift and mismatch): the long-lived one first, more started on
 * first need and kept.
 */
const scanPool: ScanClient[] = [];
export function scanClients(count: number): ScanClient[] {
  if (typeof Worker === "undefined") return [scanClient()];
  if (scanPool.length === 0) scanPool.push(scanClient());
  while (scanPool.length < count) scanPool.push(createScanClient());
  return scanPool.slice(0, count);
}

/** What a file scan needs of an open file (its RolloutFileClient). */
export interface ScanFile {
  readonly source: RolloutFileSource;
  caughtUp(): Promise<void>;
  getState(): { readonly bytes: number };
  ranges(targetBytes: number): Promise<FileRanges>;
}

/**
 * Every core's worker on one file: the file caught up, its ranges from the file's index, and the
 * clients to share them among.
 */
export async function scanPlan(file: ScanFile) {
  const workers = await poolSize(file);
  const ranges = await file.ranges(scanRangeBytes(file.getState().bytes, workers));
  return { ranges, clients: scanClients(workers) };
}

/** How many workers scan the file (once it is caught up): by this machine's cores and its size. */
async function poolSize(file: ScanFile): Promise<number> {
  await file.caughtUp();
  const cores = typeof navigator === "undefined" ? 1 : navigator.hardwareConcurrency;
  return scanWorkerCount(cores, file.getState().bytes);
}

/**
 * Starts the workers a scan of `file` will use and loads `tokenizer` into each (its round trip
 * readied), before anyone asks for the scan: "Check drift" then starts checking at once. Resolves
 * to the number of workers readied.
 */
export async function readyScanPool(file: ScanFile, tokenizer: string): Promise<number> {
  const clients = scanClients(await poolSize(file));
  await Promise.all(clients.map((c) => c.load(tokenizer)));
  return clients.length;
}
