import { Hono } from "hono";
import { startBranches } from "./agent/branches";
import type { BisectUpstreams } from "./bisect/runBisect";
import { createFileRegistry } from "./files/fileRegistry";
import { packageVersion } from "./paths";
import { lazyFamilyGuard } from "./rescore/familyGuard";
import { bisectRoutes } from "./routes/bisect";
import { episodesRoutes } from "./routes/episodes";
import { filesRoutes } from "./routes/files";
import { mcpRoutes } from "./routes/mcp";
import { rescoreRoutes } from "./routes/rescore";
import { tokenizerRoutes } from "./routes/tokenizers";
import { type AccessPolicy, resolveAccess } from "./security/access";
import { applySecurity } from "./security/middleware";
import { SseGate } from "./security/sseGate";
import type { Services } from "./services";
import { SglangClient } from "./sglang/sglangClient";
import { loadTokenizer } from "./tokenizers/loadTokenizer";

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
            tokenizers: {
              names: services.tokenizers.list.tokenizers.map((t) => t.name),
              fallback: services.tokenizers.list.default,
            },
          },
          body,
        ),
      sseGate,
    }),
  );
  app.route(
    "/api/files",
    filesRoutes({
      files: config.files,
      dataDir: config.data,
      map: config.map,
      registry: files,
      maxRangeReads: config.maxRangeReads,
    }),
  );
  app.route(
    "/mcp",
    mcpRoutes({
      files: config.files,
      dataDir: config.data,
      version: packageVersion(),
      sglang: services.upstreamUrls,
      maxRunning: config.maxEpisodes,
      ...(config.map === undefined ? {} : { map: config.map }),
    }),
  );
  // The family check of rescoring and the bisect lab: /model_info asked once, kept.
  const familyGuard = lazyFamilyGuard(
    () => services.sglang.modelInfo(),
    services.tokenizers.list.tokenizers.map((t) => t.name),
    (name) => loadTokenizer(services.tokenizers.resolve(name) ?? name),
  );
  app.route(
    "/api/rescore",
    rescoreRoutes({
      sglang: services.sglang,
      liveTrajectory: (id) => manager.trajectory(id),
      findStored: (id) => index.find(id),
      guard: familyGuard,
      // An added lane is the episode stored again; the index keeps an id's last line.
      persist: async (trajectory) => {
        index.add(trajectory, await services.store.finish(trajectory));
        manager.revise(trajectory);
      },
    }),
  );
  app.route(
    "/api/bisect",
    bisectRoutes({
      upstreams: bisectUpstreams(services),
      guard: familyGuard,
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

/**
 * The bisect lab's upstreams (docs/bisect.md): one configured upstream is `a` through the shared
 * client; with two or more, the first is `a` and the second `b`, each with a client of its own
 * (made on first use), so each knob asks exactly the upstream it names.
 */
function bisectUpstreams(services: Services): () => BisectUpstreams {
  let made: BisectUpstreams | undefined;
  return () => {
    if (made) return made;
    const [a, b] = services.upstreamUrls;
    const own = (url: string) =>
      new SglangClient({ upstreams: [url], health: { intervalMs: 0, reprobeMs: 60_000 } });
    made =
      a === undefined || b === undefined
        ? { a: { url: a ?? "", client: services.sglang } }
        : { a: { url: a, client: own(a) }, b: { url: b, client: own(b) } };
    return made;
  };
}
