import { Hono } from "hono";
import { startBranches } from "./agent/branches";
import { createFileRegistry } from "./files/fileRegistry";
import { episodesRoutes } from "./routes/episodes";
import { filesRoutes } from "./routes/files";
import { rescoreRoutes } from "./routes/rescore";
import { tokenizerRoutes } from "./routes/tokenizers";
import { type AccessPolicy, resolveAccess } from "./security/access";
import { applySecurity } from "./security/middleware";
import { SseGate } from "./security/sseGate";
import type { Services } from "./services";

/** Builds the HTTP app (middleware + routes); tests call it without a port. */
export function buildApp(
  services: Services,
  access: AccessPolicy = resolveAccess(services.config),
) {
  const { config, manager, index, client } = services;
  const app = new Hono();
  applySecurity(app, access, config);
  const sseGate = new SseGate(config.maxSseClients, config.maxSsePerEpisode);
  // One registry for the listing, the byte ranges and forks: a file id means one file everywhere.
  const files = createFileRegistry(config.files, config.data, {
    ...(config.map === undefined ? {} : { map: config.map }),
  });
  app.get("/api/health", (c) =>
    c.json({
      ok: true,
      upstream: services.isSimulated ? "simulator" : config.sglang,
      isSimulated: services.isSimulated,
      model: client.model,
      tokenizer: config.tokenizer,
      contextLength: client.contextLength ?? null,
      tools: [...services.registry.tools.keys()],
      runningEpisodes: manager.runningCount,
    }),
  );
  app.route("/api/tokenizers", tokenizerRoutes(config));
  app.route(
    "/api/episodes",
    episodesRoutes({
      manager,
      serialize: services.store.serialize,
      findStored: (id) => index.find(id),
      listStored: async () => index.summaries(),
      tokenizerNames: services.tokenizers.list.tokenizers.map((t) => t.name),
      prepareTokenizer: (name) => services.runnerFor(name),
      startBranches: (body) =>
        startBranches(
          {
            manager,
            runner: services.runner,
            runnerFor: services.runnerFor,
            findStored: (id) => index.find(id),
            files: files.list(),
          },
          body,
        ),
      sseGate,
    }),
  );
  app.route(
    "/api/files",
    filesRoutes({ files: config.files, dataDir: config.data, map: config.map, registry: files }),
  );
  app.route(
    "/api/rescore",
    rescoreRoutes({
      sglang: services.sglang,
      liveTrajectory: (id) => manager.trajectory(id),
      findStored: (id) => index.find(id),
    }),
  );
  app.onError((error, c) => {
    console.error(error);
    return c.json({ error: `internal error: ${error.message}` }, 500);
  });
  return app;
}
