import { queryOptions } from "@tanstack/react-query";
import { type ServerFileList, serverFileListSchema } from "../core/files/filesWire";
import type { RolloutFileSource } from "../workers/rolloutFileProtocol";

const BASE = "/api/files";

/** `GET /api/files`: the files named on the command line and the live-episode store. */
async function fetchServerFiles(signal: AbortSignal): Promise<ServerFileList> {
  const res = await fetch(BASE, { signal });
  if (!res.ok) throw new Error(`GET ${BASE}: ${res.status} ${res.statusText}`);
  const parsed = serverFileListSchema.safeParse(await res.json());
  if (!parsed.success) throw new Error(`GET ${BASE}: unexpected reply (${parsed.error.message})`);
  return parsed.data;
}

export const filesQueries = {
  all: () => ["files"] as const,
  list: () =>
    queryOptions({
      queryKey: [...filesQueries.all(), "list"] as const,
      queryFn: ({ signal }) => fetchServerFiles(signal),
      // No server (plain `vite`, static hosting) is normal: local files still work.
      retry: false,
    }),
};

/** Where the worker reads server file `id` from. */
export function serverFileSource(id: string, name: string): RolloutFileSource {
  const file = `${BASE}/${encodeURIComponent(id)}`;
  return { kind: "http", name, infoUrl: file, rangeUrl: `${file}/range` };
}
