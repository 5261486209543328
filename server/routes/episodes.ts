import { type Context, type Env, type Handler, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { trajectoryToAtif } from "../../src/core/formats/atifWrite";
import { TOKENIZER_REASON_TEXT } from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import {
  episodeRequestSchemaFor,
  type ForkEpisodeRequest,
  humanReplySchema,
} from "../../src/core/wire/episodes";
import type { BranchOutcome } from "../agent/branches";
import { type EpisodeManager, TooManyEpisodesError } from "../agent/episodeManager";
import type { SseGate } from "../security/sseGate";
import { readStoredEpisode } from "../store/findTrajectory";
import { readJsonBody } from "./readJsonBody";

export interface EpisodesRouteOptions {
  readonly manager: EpisodeManager;
  /** Serializes a trajectory as one rollout-lens/v1 object. */
  readonly serialize: (trajectory: Trajectory) => unknown;
  /** Finished episodes from the data file (for ones no longer in memory). */
  readonly findStored: (id: string) => Promise<unknown | undefined>;
  readonly listStored: () => Promise<readonly unknown[]>;
  /** Starts the branches of a fork request (`{"fork": …}`); without it forks are refused. */
  readonly startBranches?: (body: ForkEpisodeRequest) => Promise<BranchOutcome>;
  /** Catalog names a new episode's `tokenizer` may take. */
  readonly tokenizerNames: readonly string[];
  /** Loads a named tokenizer before the episode starts, so a broken one is refused here. */
  readonly prepareTokenizer?: (name: string) => Promise<unknown>;
  /** Caps open event streams; unlimited without one. */
  readonly sseGate?: SseGate;
}

/** The episodes resource: start, list, fetch, follow (SSE), abort, and answer the human tool. */
export function episodesRoutes(options: EpisodesRouteOptions) {
  const { manager } = options;
  const app = new Hono();
  app.post("/", startEpisode(options));
  app.get("/", listEpisodes(options));
  app.get("/:id", fetchEpisode(options));
  app.get("/:id/events", followEpisode(options));

  app.post("/:id/abort", (c) => {
    const id = c.req.param("id");
    if (!manager.abort(id)) return c.json({ error: `episode "${id}" is not running` }, 409);
    return c.json({ ok: true });
  });

  app.post("/:id/human-reply", async (c) => {
    const id = c.req.param("id");
    const body = await readJsonBody(c, humanReplySchema);
    if (!body.ok) return c.json({ error: body.error }, 400);
    if (!manager.humanReply(id, body.value.reply)) {
      return c.json({ error: `episode "${id}" is not waiting for a human reply` }, 409);
    }
    return c.json({ ok: true });
  });

  return app;
}

/** POST /: an episode started, or the branches of a fork request; 429 when too many run. */
function startEpisode(options: EpisodesRouteOptions): Handler {
  const requestSchema = episodeRequestSchemaFor(options.tokenizerNames);
  return async (c) => {
    const body = await readJsonBody(c, requestSchema);
    if (!body.ok) return c.json({ error: body.error }, 400);
    try {
      if ("fork" in body.value) return await startFork(c, options, body.value);
      const { tokenizer } = body.value;
      if (tokenizer !== undefined && options.prepareTokenizer) {
        try {
          await options.prepareTokenizer(tokenizer);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return c.json({ error: `tokenizer: cannot load "${tokenizer}": ${reason}` }, 400);
        }
      }
      const id = options.manager.start(body.value);
      return c.json({ id }, 201);
    } catch (error) {
      if (error instanceof TooManyEpisodesError) return c.json({ error: error.message }, 429);
      throw error;
    }
  };
}

/** A fork request's branches started: their ids, the tokenizer chosen and why, the file read. */
async function startFork(c: Context, options: EpisodesRouteOptions, body: ForkEpisodeRequest) {
  if (!options.startBranches) return c.json({ error: "this server cannot branch" }, 400);
  const started = await options.startBranches(body);
  if (!started.ok) return c.json({ error: started.error }, started.status);
  const { name, reason } = started.tokenizer;
  const tokenizer = { name, reason, why: TOKENIZER_REASON_TEXT[reason] };
  // A file fork names the file it read, so a wrong file shows at once.
  const { source } = started;
  const named = source ? { source } : {};
  return c.json({ id: started.ids[0], ids: started.ids, tokenizer, ...named }, 201);
}

/** GET /: the live episodes and the stored ones not live, newest first. */
function listEpisodes(options: EpisodesRouteOptions): Handler {
  return async (c) => {
    const live = options.manager.summaries();
    const liveIds = new Set(live.map((s) => s.id));
    const stored = (await options.listStored()).filter(
      (s) => !(typeof s === "object" && s !== null && "id" in s && liveIds.has(String(s.id))),
    );
    const all = [...live, ...stored];
    const createdAt = (s: unknown) =>
      typeof s === "object" && s !== null && "createdAt" in s ? String(s.createdAt) : "";
    all.sort((a, b) => createdAt(b).localeCompare(createdAt(a)));
    return c.json({ episodes: all });
  };
}

/**
 * GET /:id, live or stored. `?format=atif` answers the episode as an ATIF document
 * (docs/format.md), ids in its metrics.
 */
function fetchEpisode(options: EpisodesRouteOptions): Handler<Env, "/:id"> {
  return async (c) => {
    const id = c.req.param("id");
    const format = c.req.query("format") ?? "rollout-lens/v1";
    if (format !== "rollout-lens/v1" && format !== "atif") {
      return c.json({ error: `format must be rollout-lens/v1 or atif, not "${format}"` }, 400);
    }
    const trajectory = options.manager.trajectory(id);
    if (trajectory) {
      return c.json(
        format === "atif" ? trajectoryToAtif(trajectory) : options.serialize(trajectory),
      );
    }
    const stored = await options.findStored(id);
    if (!stored) return c.json({ error: `no episode "${id}"` }, 404);
    if (format !== "atif") return c.json(stored);
    const read = readStoredEpisode(stored);
    if (read.kind !== "found") {
      return c.json({ error: `episode "${id}" is stored but cannot be read back` }, 500);
    }
    return c.json(trajectoryToAtif(read.trajectory));
  };
}

/**
 * GET /:id/events: a live episode's events as server-sent events, from `Last-Event-ID` + 1 or
 * `?from=` (else the first), until its `end` event or the client leaves.
 */
function followEpisode(options: EpisodesRouteOptions): Handler<Env, "/:id/events"> {
  const { manager } = options;
  return (c) => {
    const id = c.req.param("id");
    if (!manager.isKnown(id)) return c.json({ error: `no live events for episode "${id}"` }, 404);
    const from = firstEventOf(c);
    const slot = options.sseGate?.enter(id);
    if (slot && !slot.ok) return c.json({ error: slot.error }, slot.status);
    const release = () => {
      if (slot?.ok) slot.release();
    };
    return streamSSE(c, async (stream) => {
      // Writes are chained so they go out in order and all land before the stream closes.
      let written = Promise.resolve();
      let resolveDone: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        resolveDone = resolve;
      });
      const unsubscribe = manager.subscribe(id, from, (seq, event) => {
        written = written.then(() =>
          stream.writeSSE({ id: String(seq), event: event.type, data: JSON.stringify(event) }),
        );
        if (event.type === "end") resolveDone();
      });
      stream.onAbort(() => {
        resolveDone();
        // A client gone mid-stream frees its slot at once, even if a write is still pending.
        release();
      });
      try {
        await done;
        unsubscribe?.();
        await written;
      } finally {
        release();
      }
    });
  };
}

/** The sequence number of the first event a follower asks for: after Last-Event-ID, or ?from=. */
function firstEventOf(c: Context): number {
  const lastEventId = Number.parseInt(c.req.header("Last-Event-ID") ?? "", 10);
  if (Number.isFinite(lastEventId)) return lastEventId + 1;
  const fromQuery = Number.parseInt(c.req.query("from") ?? "", 10);
  return Number.isFinite(fromQuery) ? fromQuery : 0;
}
