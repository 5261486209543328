import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { filesRoutes } from "../../server/routes/files";

// A child process serving `/api/files` over the files named in argv (the data directory first), so
// a test can read its peak memory (/proc/PID/status VmHWM) apart from the client's. Prints the port.
const [dataDir = ".", ...files] = process.argv.slice(2);
const app = new Hono().route("/api/files", filesRoutes({ files, dataDir }));
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  process.stdout.write(`${info.port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
