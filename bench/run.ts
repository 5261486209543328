// Runs every bench/*.bench.ts in sequence (`npm run bench`); each prints its own figures.
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv[2];
for (const name of readdirSync(dir).sort()) {
  if (!name.endsWith(".bench.ts") || (only && !name.includes(only))) continue;
  console.log(`\n== ${name}`);
  await import(pathToFileURL(`${dir}${name}`).href);
}
