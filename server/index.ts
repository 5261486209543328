import { join } from "node:path";
import { serve } from "@hono/node-server";
import { buildApp } from "./app";
import type { ServerConfig } from "./config";
import { PACKAGE_ROOT } from "./paths";
import { resolveAccess } from "./security/access";
import { mountAppPages } from "./security/appBuild";
import { createServices } from "./services";

// The web app's build, beside server/ in a clone and beside lib/ in the installed package.
const distDir = join(PACKAGE_ROOT, "dist");

/** What a caller of startServer needs to send a browser in. */
export interface RunningServer {
  /** The access token every request needs; undefined when the server needs none. */
  readonly token?: string;
}

/** Starts the server on the configured port and shuts it down on SIGINT/SIGTERM. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const services = await createServices(config);
  const access = resolveAccess(config);
  const app = buildApp(services, access);
  mountAppPages(app, distDir, PACKAGE_ROOT);
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const upstream = services.isSimulated
    ? "the embedded SGLang simulator"
    : config.sglang.join(", ");
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${shownHost}:${config.port}/`;
  // The token is printed once, here; it is not logged anywhere else.
  const openUrl = access.token === undefined ? url : `${url}?token=${access.token}`;
  console.log(`Rollout Lens on ${openUrl} (model: ${upstream})`);
  if (access.isGenerated) {
    console.log("An access token was generated for this run; open the URL above once to sign in.");
  }
  const shutdown = () => {
    void services.close().finally(() => server.close(() => process.exit(0)));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return access.token === undefined ? {} : { token: access.token };
}
