import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { filesQueries, serverFileSource } from "../../api/files";
import type { ServerFileList } from "../../core/files/filesWire";
import { RolloutFileClient, type RolloutFileState } from "../../workers/rolloutFileClient";
import { isLocalFileId, localFileId } from "./fileRoutes";

// Open files live for the page's lifetime: a local File cannot be put in a URL or re-read after a
// reload, so `/files/local-N` only resolves in the tab that opened it.
const clients = new Map<string, RolloutFileClient>();
let localCount = 0;

/**
 * Starts indexing what the user picked or dropped: its first file, or, for several `.pt` files
 * at once, the rollout dump among them with the others as its train dumps (joined by the core,
 * which says so when they do not belong together). Returns the route id; undefined for none.
 */
export function openLocalFiles(files: readonly File[]): string | undefined {
  const [first, ...rest] = files;
  if (!first) return undefined;
  const isDumps = rest.length > 0 && files.every((f) => f.name.endsWith(".pt"));
  const trainDumps = rest.map((f) => ({ kind: "blob", name: f.name, blob: f }) as const);
  localCount += 1;
  const id = localFileId(localCount);
  const source = { kind: "blob", name: first.name, blob: first } as const;
  clients.set(id, new RolloutFileClient(isDumps ? { ...source, trainDumps } : source, false));
  return id;
}

/** The open file of a route id, or why there is none (`reason` undefined: still asking the server). */
export type FileLookup =
  | { readonly client: RolloutFileClient; readonly reason?: undefined }
  | { readonly client: undefined; readonly reason: string | undefined };

const LOCAL_GONE =
  "This file was opened in another tab or before a reload; a local file cannot be reopened from a link.";

/**
 * The client of route id `fileId`. A server file (its id as `GET /api/files` lists it) opens on
 * first use under the name the server gives it, tailed since it may grow.
 */
export function useFileClient(fileId: string): FileLookup {
  const open = clients.get(fileId);
  const isServerFile = !isLocalFileId(fileId);
  const list = useQuery({ ...filesQueries.list(), enabled: isServerFile && open === undefined });
  if (open) return { client: open };
  if (!isServerFile) return { client: undefined, reason: LOCAL_GONE };
  if (list.isError) {
    return {
      client: undefined,
      reason: `The server's files could not be listed (${list.error.message}).`,
    };
  }
  if (!list.data) return { client: undefined, reason: undefined };
  const client = openServerFile(fileId, list.data);
  if (!client) return { client: undefined, reason: `The server lists no file "${fileId}".` };
  return { client };
}

/**
 * The client of server file `fileId` as `list` names it, opened on first use (tailed, since it may
 * grow); undefined when the list has no such file.
 */
export function openServerFile(
  fileId: string,
  list: ServerFileList,
): RolloutFileClient | undefined {
  const open = clients.get(fileId);
  if (open) return open;
  const file = list.files.find((f) => f.id === fileId);
  if (!file) return undefined;
  const client = new RolloutFileClient(serverFileSource(file), true);
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
