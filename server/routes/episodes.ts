import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { trajectoryToAtif } from "../../src/core/formats/atif";
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

/** The episodes resource: start, list, fetch, follow (SSE), abort, and answer the human tool. */
export function episodesRoutes(options: {
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
}) {
  const { manager } = options;
  const app = new Hono();
  const requestSchema = episodeRequestSchemaFor(options.tokenizerNames);

  app.post("/", async (c) => {
    const body = await readJsonBody(c, requestSchema);
    if (!body.ok) return c.json({ error: body.error }, 400);
    try {
      if ("fork" in body.value) {
        if (!options.startBranches) return c.json({ error: "this server cannot branch" }, 400);
        const started = await options.startBranches(body.value);
        if (!started.ok) return c.json({ error: started.error }, started.status);
        const { name, reason } = started.tokenizer;
        const tokenizer = { name, reason, why: TOKENIZER_REASON_TEXT[reason] };
        // A file fork names the file it read, so a wrong file shows at once.
        const { source } = started;
        const named = source ? { source } : {};
        return c.json({ id: started.ids[0], ids: started.ids, tokenizer, ...named }, 201);
      }
      const { tokenizer } = body.value;
      if (tokenizer !== undefined && options.prepareTokenizer) {
        try {
          await options.prepareTokenizer(tokenizer);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return c.json({ error: `tokenizer: cannot load "${tokenizer}": ${reason}` }, 400);
        }
      }
      const id = manager.start(body.value);
      return c.json({ id }, 201);
    } catch (error) {
      if (error instanceof TooManyEpisodesError) return c.json({ error: error.message }, 429);
      throw error;
    }
  });

  app.get("/", async (c) => {
    const live = manager.summaries();
    const liveIds = new Set(live.map((s) => s.id));
    const stored = (await options.listStored()).filter(
      (s) => !(typeof s === "object" && s !== null && "id" in s && liveIds.has(String(s.id))),
    );
    const all = [...live, ...stored];
    const createdAt = (s: unknown) =>
      typeof s === "object" && s !== null && "createdAt" in s ? String(s.createdAt) : "";
    all.sort((a, b) => createdAt(b).localeCompare(createdAt(a)));
    return c.json({ episodes: all });
  });

  // `?format=atif` answers the episode as an ATIF document (docs/format.md), ids in its metrics.
  app.get("/:id", async (c) => {
    const id = c.req.param("id");
    const format = c.req.query("format") ?? "rollout-lens/v1";
    if (format !== "rollout-lens/v1" && format !== "atif") {
      return c.json({ error: `format must be rollout-lens/v1 or atif, not "${format}"` }, 400);
    }
    const trajectory = manager.trajectory(id);
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
  });

  app.get("/:id/events", (c) => {
    const id = c.req.param("id");
    if (!manager.isKnown(id)) return c.json({ error: `no live events for episode "${id}"` }, 404);
    const lastEventId = Number.parseInt(c.req.header("Last-Event-ID") ?? "", 10);
    const fromQuery = Number.parseInt(c.req.query("from") ?? "", 10);
    const from = Number.isFinite(lastEventId)
      ? lastEventId + 1
      : Number.isFinite(fromQuery)
        ? fromQuery
        : 0;
    const slot = options.sseGate?.enter(id);
    if (slot && !slot.ok) return c.json({ error: slot.error }, slot.status);
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
        if (slot?.ok) slot.release();
      });
      try {
        await done;
        unsubscribe?.();
        await written;
      } finally {
        if (slot?.ok) slot.release();
      }
    });
  });

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
