import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's root folder. This file sits one level below it both as source (`server/`, run
 * through tsx) and compiled (`lib/`, where esbuild puts every chunk), so `..` is the root in both.
 */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** True when running the compiled JavaScript in `lib/` rather than the TypeScript sources. */
export const IS_COMPILED = !import.meta.url.endsWith(".ts");

/** The package's version, from its package.json. */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));
  return typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "?";
}
