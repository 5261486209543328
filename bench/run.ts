import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Runs every bench/*.bench.ts in sequence (alphabetical); each default-exports an async function.
const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts") && (only === undefined || f.includes(only)))
  .sort();
for (const file of files) {
  console.log(`\n## ${file}`);
  const mod: { default?: unknown } = await import(pathToFileURL(join(here, file)).href);
  if (typeof mod.default === "function") await mod.default();
}
