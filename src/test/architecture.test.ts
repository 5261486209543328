import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  folderMapOf,
  ignoredFolders,
  longFunctions,
  packageImportsOf,
  readRepoFile,
  relativeImportsOf,
  resolvedImport,
  sourceFilesUnder,
  subfoldersOf,
} from "./codeShape";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 500;
/** Data generated once and checked in (see each file's header), not code anyone reads. */
const GENERATED = new Set(["src/core/demo/calculatorTokens.ts"]);

describe("docs/architecture.md's folder map matches the tree", () => {
  const map = folderMapOf(readRepoFile(ROOT, "docs/architecture.md"));
  const named = new Set(map.folders);
  const skip = new Set([...ignoredFolders(readRepoFile(ROOT, ".gitignore")), "node_modules"]);

  it("names folders", () => {
    expect(map.folders).toEqual(expect.arrayContaining(["src/core/", "server/", "server/agent/"]));
  });

  it("every folder it names exists", () => {
    const missing = map.folders.filter((f) => !existsSync(join(ROOT, f)));
    expect(missing).toEqual([]);
  });

  it("names every top-level folder, every folder of src/, and every folder of a folder it details", () => {
    const expected = [
      ...subfoldersOf(ROOT, "", skip),
      ...subfoldersOf(ROOT, "src/", skip),
      ...map.parents.flatMap((p) => subfoldersOf(ROOT, p, skip)),
    ];
    // src/ itself is named through its folders (src/core/, src/api/...).
    const unnamed = expected.filter((f) => !named.has(f) && f !== "src/");
    expect(unnamed).toEqual([]);
  });
});

describe(`no function over ${MAX_FUNCTION_LINES} lines, no file over ${MAX_FILE_LINES}`, () => {
  const files = ["server", "src", "test-support", "scripts", "bench", "e2e"]
    .flatMap((dir) => sourceFilesUnder(ROOT, dir))
    .filter((f) => !GENERATED.has(f));

  it("functions in server/, src/, test-support/, scripts/, bench/ and e2e/ (suites and generated data aside)", () => {
    expect(files.length).toBeGreaterThan(300);
    const long = files.flatMap((f) => longFunctions(f, readRepoFile(ROOT, f), MAX_FUNCTION_LINES));
    expect(long.map((l) => `${l.file}:${l.line} ${l.name} (${l.lines} lines)`)).toEqual([]);
  });

  it("source files, tests included (generated data aside)", () => {
    const big = files
      .map((f) => ({ f, lines: readRepoFile(ROOT, f).split("\n").length }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(big.map(({ f, lines }) => `${f} (${lines} lines)`)).toEqual([]);
  });
});

describe("the trajectory view stays a composition", () => {
  it("TrajectoryView is at most 80 lines: its parts live in hooks and panels beside it", () => {
    const file = "src/features/trajectory-view/TrajectoryView.tsx";
    const long = longFunctions(file, readRepoFile(ROOT, file), 80);
    expect(long.map((l) => `${l.name} (${l.lines} lines)`)).toEqual([]);
  });
});

describe("test support stays out of what ships", () => {
  it("no app, core or server module imports test-support/ or src/test/", () => {
    const shipped = [...sourceFilesUnder(ROOT, "server"), ...sourceFilesUnder(ROOT, "src")].filter(
      (f) => !/\.test\.tsx?$/.test(f) && !f.startsWith("src/test/"),
    );
    const offenders = shipped.flatMap((f) =>
      relativeImportsOf(readRepoFile(ROOT, f))
        .map((s) => resolvedImport(ROOT, f, s))
        .filter((target) => /^(test-support|src\/test)(\/|$)/.test(target))
        .map((target) => `${f} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("nothing in src/core/, tests included, imports server/ (real tokenizers: test-support/)", () => {
    const offenders = sourceFilesUnder(ROOT, "src/core").flatMap((f) =>
      relativeImportsOf(readRepoFile(ROOT, f))
        .map((s) => resolvedImport(ROOT, f, s))
        .filter((target) => target.startsWith("server/"))
        .map((target) => `${f} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("test-support/ holds no tests (they live next to what they test)", () => {
    const tests = sourceFilesUnder(ROOT, "test-support").filter((f) => /\.test\.tsx?$/.test(f));
    expect(tests).toEqual([]);
    expect(statSync(join(ROOT, "test-support")).isDirectory()).toBe(true);
  });
});

/*
 * The packages the pure core may use: it runs in the browser's workers, the server and the CLI
 * alike, so no Node module and no framework; hyparquet through its public entry, its page-level
 * internals only through the one module that names them (and pins their version).
 */
const CORE_PACKAGES = new Set(["zod", "hyparquet", "hyparquet-compressors", "yaml", "papaparse"]);
const HYPARQUET_INTERNALS = "src/core/formats/hyparquetInternals.ts";

describe("what src/core/ may import", () => {
  const shipped = sourceFilesUnder(ROOT, "src/core").filter((f) => !/\.test\.tsx?$/.test(f));

  it("only its listed packages, in every module that ships", () => {
    expect(shipped.length).toBeGreaterThan(100);
    const offenders = shipped.flatMap((f) =>
      packageImportsOf(readRepoFile(ROOT, f))
        .filter(
          (p) =>
            !CORE_PACKAGES.has(p) && !(f === HYPARQUET_INTERNALS && p.startsWith("hyparquet/src/")),
        )
        .map((p) => `${f} → ${p}`),
    );
    expect(offenders).toEqual([]);
  });

  it("tokenizer/ imports nothing of drift/ (the fast round trip lives with the tokenizer)", () => {
    const offenders = sourceFilesUnder(ROOT, "src/core/tokenizer")
      .filter((f) => !/\.test\.tsx?$/.test(f))
      .flatMap((f) =>
        relativeImportsOf(readRepoFile(ROOT, f))
          .map((s) => resolvedImport(ROOT, f, s))
          .filter((target) => target.startsWith("src/core/drift/"))
          .map((target) => `${f} → ${target}`),
      );
    expect(offenders).toEqual([]);
  });

  it(`hyparquet's internals only through ${HYPARQUET_INTERNALS}, at an exact version`, () => {
    const internals = packageImportsOf(readRepoFile(ROOT, HYPARQUET_INTERNALS));
    expect(internals.length).toBeGreaterThan(0);
    expect(internals.every((p) => p.startsWith("hyparquet/src/"))).toBe(true);
    const manifest = JSON.parse(readRepoFile(ROOT, "package.json")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.hyparquet).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("the shape checks find what they look for", () => {
  it("reads a folder map: margin lines are folders, indented lines folders inside them", () => {
    const md = [
      "# A",
      "## Folders",
      "```",
      "src/core/        pure",
      "  trajectory/    model",
      "  layout/ series/",
      "server/          shell",
      "scripts/         build",
      "```",
      "## Next",
      "```",
      "not/             a folder of the map",
      "```",
    ].join("\n");
    expect(folderMapOf(md)).toEqual({
      folders: [
        "src/core/",
        "src/core/trajectory/",
        "src/core/layout/",
        "src/core/series/",
        "server/",
        "scripts/",
      ],
      parents: ["src/core/"],
    });
  });

  it("measures functions of every form, suites aside", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`);
    const text = [
      "export function long() {",
      ...body(150),
      "}",
      "const arrow = () => {",
      ...body(10),
      "};",
      "class C {",
      "  method() {",
      ...body(151),
      "  }",
      "}",
      'describe("suite", () => {',
      ...body(200),
      "});",
    ].join("\n");
    expect(longFunctions("x.ts", text, 150).map((f) => [f.name, f.lines, f.line])).toEqual([
      ["long", 152, 1],
      ["method", 153, 166],
    ]);
  });

  it("reads relative imports, re-exports and dynamic imports", () => {
    const text = [
      'import { a } from "./a";',
      'export { b } from "../b";',
      'const c = await import("../../c");',
      'import d from "node:fs";',
    ].join("\n");
    expect(relativeImportsOf(text)).toEqual(["./a", "../b", "../../c"]);
    expect(packageImportsOf(`${text}\nimport { z } from "zod";`)).toEqual(["node:fs", "zod"]);
    expect(resolvedImport("/r", "server/x/y.ts", "../../test-support/sim")).toBe(
      "test-support/sim",
    );
  });

  it("leaves out of the tree what .gitignore ignores", () => {
    expect([...ignoredFolders("node_modules\ndist/\n*.tsbuildinfo\n.bench/\n# c\n")]).toEqual([
      "node_modules",
      "dist",
      ".bench",
    ]);
  });
});
