import { useSyncExternalStore } from "react";
import { serverFileSource } from "../../api/files";
import { RolloutFileClient, type RolloutFileState } from "../../workers/rolloutFileClient";

// Open files live for the page's lifetime: a local File cannot be put in a URL or re-read after a
// reload, so `/files/local-N` only resolves in the tab that opened it.
const clients = new Map<string, RolloutFileClient>();
let localCount = 0;

/** Starts indexing a file the user picked or dropped; returns its route id. */
export function openLocalFile(file: File): string {
  localCount += 1;
  const id = `local-${localCount}`;
  clients.set(id, new RolloutFileClient({ kind: "blob", name: file.name, blob: file }, false));
  return id;
}

/** Route id of a server file (`srv-<id>`). */
export function serverRouteId(serverId: string): string {
  return `srv-${serverId}`;
}

/**
 * The client of route id `fileId`, opening a server file on first use (tailed: it may grow).
 * undefined for a local id this tab never opened.
 */
export function fileClient(fileId: string): RolloutFileClient | undefined {
  const existing = clients.get(fileId);
  if (existing || !fileId.startsWith("srv-")) return existing;
  const serverId = fileId.slice(4);
  const client = new RolloutFileClient(serverFileSource(serverId, serverId), true);
  clients.set(fileId, client);
  return client;
}

const closed = {
  subscribe: () => () => {},
  getState: () => undefined,
};

/** The live indexing state of `client` (re-renders on every progress message). */
export function useRolloutFileState(
  client: RolloutFileClient | undefined,
): RolloutFileState | undefined {
  const source = client ?? closed;
  return useSyncExternalStore(source.subscribe, source.getState);
}
