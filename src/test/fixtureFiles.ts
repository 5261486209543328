import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Absolute path of a committed fixture in src/test/fixtures/. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** The lines of a committed JSONL fixture, without the trailing empty line. */
export function fixtureLines(name: string): string[] {
  const lines = readFileSync(fixturePath(name), "utf8").split("\n");
  return lines.at(-1) === "" ? lines.slice(0, -1) : lines;
}
