// `npm ci` on the oldest Node our `engines` accepts must not warn EBADENGINE: every direct
// dependency's own `engines.node` has to accept that version too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

interface Manifest {
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

function manifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, "utf8")) as Manifest;
}

type Version = readonly [number, number, number];

function parse(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, "").split(".").map(Number);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of a node-semver range (`>=20.19`, `^22.17.0`, `<25`, `20.x`). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const match = /^(>=|<=|>|<|\^|~|=)?\s*v?([\d.x*]+)$/.exec(comparator.trim());
  if (!match) throw new Error(`unsupported engines comparator: ${comparator}`);
  const op = match[1] ?? "=";
  const bound = parse((match[2] ?? "0").replace(/[x*]/g, "0"));
  const cmp = compare(version, bound);
  if (op === ">=") return cmp >= 0;
  if (op === ">") return cmp > 0;
  if (op === "<=") return cmp <= 0;
  if (op === "<") return cmp < 0;
  if (op === "^") return cmp >= 0 && version[0] === bound[0];
  if (op === "~") return cmp >= 0 && version[0] === bound[0] && version[1] === bound[1];
  return /[x*]/.test(match[2] ?? "") ? version[0] === bound[0] : cmp === 0;
}

function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  // `>= 20` and `>=20` are the same comparator.
  return range
    .replace(/(>=|<=|>|<|\^|~|=)\s+/g, "$1")
    .split("||")
    .some((part) =>
      part
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .every((comparator) => satisfiesComparator(v, comparator)),
    );
}

describe("engines", () => {
  it("reads node-semver ranges as npm does", () => {
    expect(satisfies("20.19.0", ">=20.11.0")).toBe(true);
    expect(satisfies("20.19.0", "^22.17.0 || >=24.0.0")).toBe(false);
    expect(satisfies("24.1.0", "^22.17.0 || >=24.0.0")).toBe(true);
    expect(satisfies("20.19.0", ">=18 <21")).toBe(true);
    expect(satisfies("20.19.0", ">= 18")).toBe(true);
  });

  it("every direct dependency runs on the oldest Node the package accepts", () => {
    const own = manifest(join(root, "package.json"));
    const floor = /[\d.]+/.exec(own.engines?.node ?? "")?.[0];
    expect(floor, "package.json engines.node names a lower bound").toBeTruthy();
    const names = Object.keys({ ...own.dependencies, ...own.devDependencies });
    const refusing = names.filter((name) => {
      const range = manifest(join(root, "node_modules", name, "package.json")).engines?.node;
      return range !== undefined && !satisfies(floor ?? "0", range);
    });
    expect(refusing).toEqual([]);
  });
});
