import { startServer } from "../index";
import type { ParsedArgs, ServeFlags } from "./commandFlags";
import { serveConfigFrom } from "./serveOptions";
import { viewUrl } from "./view";

/** `rollout-lens serve` (flags from `serveSpec`): serves the app until interrupted. */
export async function runServe({ values, positionals }: ParsedArgs<ServeFlags>): Promise<number> {
  const config = serveConfigFrom(values, positionals);
  await startServer(config);
  if (config.files.length > 0) {
    const what = positionals.length > 0 ? "Files" : "Demo rollouts";
    console.log(`${what}: ${viewUrl(config.host, config.port, config.files.length)}`);
  }
  return new Promise<number>(() => {});
}
