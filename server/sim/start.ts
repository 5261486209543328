import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createSimApp, type SimApp } from "./app";
import type { SimOptionsInput } from "./options";

export interface RunningSim {
  readonly sim: SimApp;
  /** Base URL, e.g. `http://127.0.0.1:30000`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves the simulator over HTTP (port 0 picks a free one); raw sockets make dropped-connection faults real. */
export async function startSim(
  listen: { readonly port: number; readonly host?: string },
  options: SimOptionsInput = {},
): Promise<RunningSim> {
  const sim = await createSimApp(options);
  const host = listen.host ?? "127.0.0.1";
  const server = serve({ fetch: sim.app.fetch, hostname: host, port: listen.port });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const address = server.address();
  // node's typing says string | AddressInfo | null; a TCP listener always gives AddressInfo.
  const port =
    typeof address === "object" && address !== null ? (address as AddressInfo).port : listen.port;
  return {
    sim,
    url: `http://${host}:${port}`,
    port,
    close() {
      sim.close();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}
