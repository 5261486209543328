import { queryOptions } from "@tanstack/react-query";
import { z } from "zod";
import { readRolloutLine } from "../core/formats/readRolloutLine";
import type { Trajectory } from "../core/trajectory/types";
import {
  EPISODE_EVENT_TYPES,
  type EpisodeEvent,
  type EpisodeSummary,
  type ForkEpisodeRequest,
  parseEpisodeEvent,
  type StartEpisodeRequest,
} from "../core/wire/episodes";
import { ApiError, getJson, getText, postJson } from "./http";

const summarySchema = z.object({
  id: z.string(),
  status: z.enum(["running", "completed", "truncated", "aborted"]),
  createdAt: z.string(),
  prompt: z.string(),
  tokens: z.number(),
  trainableTokens: z.number(),
  turns: z.number(),
  toolCalls: z.number(),
  parentId: z.string().optional(),
  forkIndex: z.number().optional(),
  reward: z.number().optional(),
}) satisfies z.ZodType<EpisodeSummary>;

const listSchema = z.object({ episodes: z.array(summarySchema) });
const startedSchema = z.object({ id: z.string() });
const branchesSchema = z.object({ id: z.string(), ids: z.array(z.string()) });
const okSchema = z.object({ ok: z.literal(true) });

const episodeUrl = (id: string) => `/api/episodes/${encodeURIComponent(id)}`;

/** Reads one rollout-lens/v1 object (the reply of `GET /api/episodes/:id`) into a Trajectory. */
async function fetchEpisode(id: string, signal: AbortSignal): Promise<Trajectory> {
  const url = episodeUrl(id);
  const text = await getText(url, signal);
  const result = readRolloutLine(text, 1, "rollout-lens/v1", url);
  if (result.kind !== "trajectories") {
    const why = result.kind === "error" ? result.error.message : "empty reply";
    const field =
      result.kind === "error" && result.error.field ? `, field ${result.error.field}` : "";
    throw new ApiError(200, `${url}: not a rollout-lens/v1 episode${field}: ${why}`);
  }
  const [trajectory] = result.trajectories;
  if (!trajectory) throw new ApiError(200, `${url}: the reply holds no trajectory`);
  return trajectory;
}

export const episodeQueries = {
  all: () => ["episodes"] as const,
  list: () =>
    queryOptions({
      queryKey: [...episodeQueries.all(), "list"] as const,
      queryFn: ({ signal }) => getJson("/api/episodes", listSchema, signal),
      select: (data) => data.episodes,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...episodeQueries.all(), "detail", id] as const,
      queryFn: ({ signal }) => fetchEpisode(id, signal),
      // A page opened on a running episode (a branch just started) shows it ending, not
      // "running" until a reload; "follow it live" streams it token by token instead.
      refetchInterval: (query) => (query.state.data?.status === "running" ? 1500 : false),
    }),
};

/** `POST /api/episodes`: starts an episode and resolves with its id. */
export async function startEpisode(request: StartEpisodeRequest): Promise<string> {
  return (await postJson("/api/episodes", request, startedSchema)).id;
}

/** `POST /api/episodes` with a fork: starts the branches and resolves with their ids. */
export async function startBranches(request: ForkEpisodeRequest): Promise<string[]> {
  return (await postJson("/api/episodes", request, branchesSchema)).ids;
}

/** `POST /api/episodes/:id/abort`. */
export async function abortEpisode(id: string): Promise<void> {
  await postJson(`${episodeUrl(id)}/abort`, {}, okSchema);
}

/** `POST /api/episodes/:id/human-reply`: answers a waiting `ask_human` call. */
export async function replyToHuman(id: string, reply: string): Promise<void> {
  await postJson(`${episodeUrl(id)}/human-reply`, { reply }, okSchema);
}

export interface EpisodeEventHandlers {
  /** One event with its SSE id; replays after a reconnect arrive again with the same seq. */
  onEvent(seq: number, event: EpisodeEvent): void;
  /** The stream cannot go on (unknown episode, bad event); no more events follow. */
  onError(message: string): void;
}

/**
 * Follows `GET /api/episodes/:id/events` (SSE, replayed from 0). EventSource reconnects on its own,
 * sending Last-Event-ID; the stream is closed after `end` so it does not reconnect forever.
 * Returns the function that stops following.
 */
export function followEpisodeEvents(id: string, handlers: EpisodeEventHandlers): () => void {
  const source = new EventSource(`${episodeUrl(id)}/events`);
  let isClosed = false;
  const close = () => {
    isClosed = true;
    source.close();
  };
  for (const type of EPISODE_EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      if (isClosed) return;
      const seq = Number.parseInt(message.lastEventId, 10);
      const parsed = parseEpisodeEvent(message.data);
      if (!parsed.ok || !Number.isFinite(seq)) {
        close();
        handlers.onError(
          `episode ${id}: bad ${type} event #${message.lastEventId}: ${parsed.ok ? "no id" : parsed.error}`,
        );
        return;
      }
      handlers.onEvent(seq, parsed.event);
      if (parsed.event.type === "end") close();
    });
  }
  source.onerror = () => {
    // CLOSED means the browser gave up (e.g. a 404 for an episode the server no longer holds);
    // CONNECTING is an ordinary reconnect that replays what was missed.
    if (!isClosed && source.readyState === EventSource.CLOSED) {
      close();
      handlers.onError(`episode ${id}: the event stream closed before the episode ended`);
    }
  };
  return close;
}
