import { queryOptions } from "@tanstack/react-query";
import {
  type ServerFile,
  type ServerFileList,
  serverFileListSchema,
  stepStatsSchema,
} from "../core/files/filesWire";
import type { StepStats } from "../core/files/stepStats";
import { parseMapSpec } from "../core/formats/columnMapping";
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

/** A step whose statistics the server is still computing (it answered 202). */
export const STEP_STATS_PENDING = "pending";

/**
 * `GET /api/files/:id/step-stats`: a run step's statistics (computed on a server worker, cached),
 * or STEP_STATS_PENDING while the server is still at it.
 */
async function fetchStepStats(
  id: string,
  signal: AbortSignal,
): Promise<StepStats | typeof STEP_STATS_PENDING> {
  const url = `${BASE}/${encodeURIComponent(id)}/step-stats`;
  const res = await fetch(url, { signal });
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const error = (body as { error?: unknown } | undefined)?.error;
    throw new Error(typeof error === "string" ? error : `GET ${url}: ${res.status}`);
  }
  if (res.status === 202) return STEP_STATS_PENDING;
  const parsed = stepStatsSchema.safeParse(body);
  if (!parsed.success) throw new Error(`GET ${url}: unexpected reply (${parsed.error.message})`);
  const { reward, length, driftRate, mismatch, ...rest } = parsed.data;
  return { ...rest, reward, length, driftRate, mismatch };
}

export const filesQueries = {
  all: () => ["files"] as const,
  list: () =>
    queryOptions({
      queryKey: [...filesQueries.all(), "list"] as const,
      queryFn: ({ signal }) => fetchServerFiles(signal),
      // No server (plain `vite`, static hosting) is normal: local files still work.
      retry: false,
      // A run directory gains step files while its trainer writes them: look again now and then.
      refetchInterval: (query) => (query.state.data?.files.some((f) => f.run) ? 5000 : false),
    }),
  /** A step file's statistics; the server caches them per path + size + mtime. */
  stepStats: (id: string) =>
    queryOptions({
      queryKey: [...filesQueries.all(), "step-stats", id] as const,
      queryFn: ({ signal }) => fetchStepStats(id, signal),
      staleTime: 60_000,
      // While the server computes, ask again each second.
      refetchInterval: (query) => (query.state.data === STEP_STATS_PENDING ? 1000 : false),
      retry: false,
    }),
};

/**
 * Where the worker reads server file `file` from, through the column mapping of `map` when the
 * server was started with `--map` (checked there; a spec that does not parse is not used), with
 * the train dumps the server lists beside a slime/miles rollout dump and the rollout dump beside
 * a miles dashboard column file.
 */
export function serverFileSource(
  file: Pick<ServerFile, "id" | "name" | "map" | "trainDumps" | "rolloutDump">,
): RolloutFileSource {
  const bytes = (id: string, name: string) => {
    const url = `${BASE}/${encodeURIComponent(id)}`;
    return { kind: "http", name, infoUrl: url, rangeUrl: `${url}/range` } as const;
  };
  const parsed = file.map === undefined ? undefined : parseMapSpec(file.map);
  const mapping = parsed?.ok ? { mapping: parsed.mapping } : {};
  const trains = file.trainDumps?.map((t) => bytes(t.id, t.name)) ?? [];
  return {
    ...bytes(file.id, file.name),
    ...mapping,
    ...(trains.length > 0 ? { trainDumps: trains } : {}),
    ...(file.rolloutDump ? { rolloutDump: bytes(file.rolloutDump.id, file.rolloutDump.name) } : {}),
  };
}
