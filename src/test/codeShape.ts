// Checks of the code's shape for src/test/architecture.test.ts: the folder map of
// docs/architecture.md, function lengths (TypeScript compiler API) and test-only imports.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The folders the map names: the fenced block under `## Folders`, where a line starting at the
 * margin names a folder (`server/`) and an indented line names folders inside the last one
 * (`  agent/` or several: `  layout/ series/`). Paths end in `/`, relative to the root.
 */
export function folderMapOf(markdown: string): { folders: string[]; parents: string[] } {
  const section = markdown.split(/^## Folders\s*$/m)[1] ?? "";
  const block = section.split(/^```/m)[1] ?? "";
  const folders: string[] = [];
  const parents = new Set<string>();
  let parent: string | undefined;
  for (const line of block.split("\n").slice(1)) {
    const top = /^([\w.-]+\/(?:[\w.-]+\/)*)(\s|$)/.exec(line);
    if (top?.[1]) {
      parent = top[1];
      folders.push(parent);
      continue;
    }
    const inner = /^ {2}((?:[\w.-]+\/ +)*[\w.-]+\/)(\s|$)/.exec(line);
    if (inner?.[1] && parent) {
      parents.add(parent);
      for (const name of inner[1].trim().split(/ +/)) folders.push(`${parent}${name}`);
    }
  }
  return { folders, parents: [...parents] };
}

/** Sub-folders of `dir` (relative to `root`, ending in `/`), dot-folders and `skip` left out. */
export function subfoldersOf(root: string, dir: string, skip: ReadonlySet<string>): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !skip.has(e.name))
    .map((e) => `${dir}${e.name}/`)
    .sort();
}

/** Folder names `.gitignore` leaves out (plain names and `name/`; patterns with wildcards skipped). */
export function ignoredFolders(gitignore: string): Set<string> {
  return new Set(
    gitignore
      .split("\n")
      .map((l) => l.trim().replace(/\/$/, ""))
      .filter((l) => l !== "" && !l.startsWith("#") && !/[*?[!/]/.test(l)),
  );
}

/** A function longer than the limit: where it starts and how many lines it spans. */
export interface LongFunction {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

const SUITE_CALLS = new Set(["describe", "describe.each", "describe.skip", "describe.only"]);

/** True for the callback of `describe(...)`: a suite lists tests, it is not one function. */
function isSuiteBody(node: ts.Node, sf: ts.SourceFile): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(node as ts.Expression)) {
    return false;
  }
  const callee = call.expression;
  const name = ts.isCallExpression(callee) ? callee.expression : callee;
  return SUITE_CALLS.has(name.getText(sf));
}

function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  return "(anonymous)";
}

/** Functions (declarations, methods, arrows) of one file spanning more than `limit` lines. */
export function longFunctions(file: string, text: string, limit: number): LongFunction[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && !isSuiteBody(node, sf)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const lines = end - start + 1;
      if (lines > limit) found.push({ file, line: start + 1, name: nameOf(node, sf), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Every .ts/.tsx file under `dir` (relative to `root`). */
export function sourceFilesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel))) {
      const path = `${rel}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** Relative import and export specifiers of a file (`import`, `export ... from`, `import()`). */
export function relativeImportsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
    if (m[1]) specifiers.push(m[1]);
  }
  return specifiers;
}

/** The packages a module imports (bare specifiers: `zod`, `hyparquet/src/column.js`, `node:fs`). */
export function packageImportsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*"([^"./][^"]*)"/g)) {
    if (m[1]) specifiers.push(m[1]);
  }
  return specifiers;
}

/** `specifier` imported from `file` as a path relative to `root`. */
export function resolvedImport(root: string, file: string, specifier: string): string {
  return relative(root, resolve(root, file, "..", specifier));
}

/** The text of a repository file. */
export function readRepoFile(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}
