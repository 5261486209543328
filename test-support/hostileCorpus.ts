import fc from "fast-check";
import { expect } from "vitest";
import type { readRolloutLine } from "../src/core/formats/readRolloutLine";

/** One hostile JSONL line and the family it came from (for the printed counts). */
export interface HostileLine {
  readonly family: string;
  readonly text: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every path to a value inside `value` (keys and indices), capped to keep mutation cheap. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  if (out.length > 400) return out;
  out.push(prefix);
  if (Array.isArray(value)) {
    value.slice(0, 6).forEach((v, i) => {
      paths(v, [...prefix, i], out);
    });
  } else if (isObject(value))
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

function setAt(root: Json, path: readonly (string | number)[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const copy: Json = structuredClone(root);
  let node: Json = copy;
  for (const key of path.slice(0, -1)) {
    node = Array.isArray(node)
      ? (node[Number(key)] ?? null)
      : isObject(node)
        ? (node[String(key)] ?? null)
        : null;
  }
  const last = path.at(-1);
  if (Array.isArray(node)) node[Number(last)] = replacement;
  else if (isObject(node)) node[String(last)] = replacement;
  return copy;
}

const BAD_VALUES: readonly Json[] = [
  null,
  true,
  "",
  "NaN",
  -1,
  -2147483649,
  1e308,
  2 ** 53 + 1,
  1_000_000_000,
  151_936,
  0.5,
  [],
  {},
  [[[[]]]],
  ["a", 1, null],
  { "0": 1 },
];

/** Fast-check arbitrary of malformed lines derived from valid `seeds` (one per format). */
export function hostileLine(seeds: readonly string[]): fc.Arbitrary<HostileLine> {
  const seed = fc.constantFrom(...seeds);
  const parsedSeed = seed.map((text): Json => JSON.parse(text));
  const wrongType = parsedSeed.chain((value) =>
    fc
      .tuple(fc.constantFrom(...paths(value)), fc.constantFrom(...BAD_VALUES))
      .map(([path, bad]) => ({
        family: "wrong type / bad number / out-of-vocab id",
        text: JSON.stringify(setAt(value, path, bad)),
      })),
  );
  const truncated = seed.chain((text) =>
    fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => ({
      family: "truncated JSON",
      text: text.slice(0, n),
    })),
  );
  const shortened = parsedSeed.chain((value) => {
    const arrays = paths(value).filter((p) => {
      let node: Json = value;
      for (const k of p)
        node = Array.isArray(node)
          ? (node[Number(k)] ?? null)
          : isObject(node)
            ? (node[String(k)] ?? null)
            : null;
      return Array.isArray(node) && node.length > 0;
    });
    if (arrays.length === 0) return fc.constant({ family: "mismatched lengths", text: "[]" });
    return fc.tuple(fc.constantFrom(...arrays), fc.nat({ max: 3 })).map(([path, drop]) => {
      let node: Json = value;
      for (const k of path)
        node = Array.isArray(node)
          ? (node[Number(k)] ?? null)
          : isObject(node)
            ? (node[String(k)] ?? null)
            : null;
      const list = Array.isArray(node) ? node : [];
      return {
        family: "mismatched array lengths",
        text: JSON.stringify(
          setAt(value, path, list.slice(0, Math.max(0, list.length - 1 - drop))),
        ),
      };
    });
  });
  const specialNumbers = seed.chain((text) =>
    fc
      .constantFrom(
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
      )
      .map((word) => ({
        family: "NaN / Infinity / overflow literals",
        // Replace every number after the first colon-list with the special word.
        text: text
          .replace(/(-?\d+(\.\d+)?(e[+-]?\d+)?)(?=[,\]])/, word)
          .replace(/:\s*-?\d+(\.\d+)?/, `:${word}`),
      })),
  );
  const duplicateKeys = seed.chain((text) =>
    fc
      .constantFrom(
        '"format":"slime"',
        '"token_ids":"x"',
        '"segments":null',
        '"tokens":[1]',
        '"id":{}',
      )
      .map((extra) => ({ family: "duplicate keys", text: `${text.slice(0, -1)},${extra}}` })),
  );
  const badUnicode = seed.chain((text) =>
    fc
      .constantFrom("\ud800", "\udfff", "\ufffd\ufffd", "\u0000", "\\ud800", "\\uZZZZ")
      .map((junk) => ({
        family: "invalid UTF-8 / lone surrogates",
        text: text.replace(/"([^"\\]{1,20})"/, `"$1${junk}"`),
      })),
  );
  const garbage = fc.string({ maxLength: 200 }).map((text) => ({ family: "random text", text }));
  return fc.oneof(
    { arbitrary: wrongType, weight: 40 },
    { arbitrary: truncated, weight: 15 },
    { arbitrary: shortened, weight: 15 },
    { arbitrary: specialNumbers, weight: 8 },
    { arbitrary: duplicateKeys, weight: 8 },
    { arbitrary: badUnicode, weight: 8 },
    { arbitrary: garbage, weight: 4 },
  );
}

/** The expensive families (deep nesting, multi-MB strings), sampled apart so their count stays small. */
export function heavyHostileLine(seeds: readonly string[]): fc.Arbitrary<HostileLine> {
  const parsedSeed = fc.constantFrom(...seeds).map((text): Json => JSON.parse(text));
  const nested = fc
    .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom("[", '{"a":', '{"segments":['))
    .map(([depth, open]) => ({ family: "deeply nested JSON", text: open.repeat(depth) }));
  const closedNested = fc.integer({ min: 1_000, max: 50_000 }).map((depth) => ({
    family: "deeply nested JSON",
    text: `{"format":"rollout-lens/v1","id":"x","segments":${"[".repeat(depth)}${"]".repeat(depth)}}`,
  }));
  const hugeString = parsedSeed.chain((value) =>
    fc
      .tuple(fc.constantFrom(...paths(value)), fc.integer({ min: 1, max: 3 }))
      .map(([path, mb]) => ({
        family: "multi-MB strings",
        text: JSON.stringify(setAt(value, path, "\u202e<script>".repeat((mb * 1024 * 1024) / 9))),
      })),
  );
  return fc.oneof(nested, closedNested, hugeString);
}

/** `count` hostile lines (plus `heavy` expensive ones), reproducible from `seed`. */
export function hostileLines(
  seeds: readonly string[],
  count: number,
  heavy: number,
  seed: number,
): HostileLine[] {
  return [
    ...fc.sample(hostileLine(seeds), { numRuns: count, seed }),
    ...fc.sample(heavyHostileLine(seeds), { numRuns: heavy, seed }),
  ];
}

/**
 * What a hostile line's read must be, whatever it is: an error naming line `lineNo` with a short
 * message, or trajectories the model accepts (lengths agree, ids are token ids). Returns which.
 */
export function expectSoundRead(
  result: ReturnType<typeof readRolloutLine>,
  lineNo: number,
  context = "",
): ReturnType<typeof readRolloutLine>["kind"] {
  if (result.kind === "error") {
    expect(result.error.line, context).toBe(lineNo);
    expect(result.error.message.length).toBeGreaterThan(0);
    expect(result.error.message.length).toBeLessThan(4_000);
  } else if (result.kind === "trajectories") {
    for (const t of result.trajectories) {
      for (const s of t.segments) {
        expect(s.lossMask).toHaveLength(s.tokenIds.length);
        expect(s.logprobs).toHaveLength(s.tokenIds.length);
        for (const id of s.tokenIds) expect(Number.isSafeInteger(id) && id >= 0).toBe(true);
      }
    }
  }
  return result.kind;
}

// Hostile `.pt` (torch.save) files: test-support/hostileTorch.ts.
export { CANARY_PATH, type HostileTorchFile, hostileTorchFiles } from "./hostileTorch";
