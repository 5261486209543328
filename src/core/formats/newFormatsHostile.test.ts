import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { trajectoryToAtif, writeAtifDocument } from "./atifWrite";
import { readRolloutLine } from "./readRolloutLine";
import type { FormatId } from "./types";

/** Every JSON path of `value` (objects and arrays, first 3 elements of each array). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) {
    for (const [i, v] of value.slice(0, 3).entries()) out.push(...paths(v, [...prefix, i]));
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  }
  return out;
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, by) : v));
  if (typeof value === "object" && value !== null && head !== undefined) {
    return { ...value, [head]: replaced((value as Record<string, unknown>)[head], rest, by) };
  }
  return value;
}

const WRONG: unknown[] = [null, "x", -1, 1.5, [], {}, [null], [-3], Number.NaN, true];
const FILES: readonly [string, FormatId][] = [
  ["reference-atif.jsonl", "atif"],
  ["reference-nemo-rl.jsonl", "nemo-rl"],
  ["reference-prime.jsonl", "prime"],
  ["reference-art.jsonl", "art"],
];

describe("new formats against hostile values", () => {
  it.each(FILES)(
    "%s: any field replaced by a wrong value loads or names its line; never throws",
    (file, format) => {
      let reads = 0;
      for (const [i, line] of fixtureLines(file).entries()) {
        const value: unknown = JSON.parse(line);
        for (const path of paths(value)) {
          for (const by of WRONG) {
            const text = JSON.stringify(replaced(value, path, by));
            for (const hint of [undefined, format]) {
              const result = readRolloutLine(text, i + 1, hint);
              reads += 1;
              if (result.kind === "error") expect(result.error.line).toBe(i + 1);
              if (result.kind === "trajectories" && result.format === "atif") {
                // What loads writes back and exports without throwing.
                expect(() => writeAtifDocument(result.trajectories)).not.toThrow();
                for (const t of result.trajectories)
                  expect(() => trajectoryToAtif(t)).not.toThrow();
              }
            }
          }
        }
      }
      expect(reads).toBeGreaterThan(100);
    },
  );
});
