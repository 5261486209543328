// Checks for src/test/docsLinks.test.ts that code comments point only at the repository's own
// documents (docs/…), never at notes kept outside it, web pages or issue numbers.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import type { DocProblem } from "./markdownPaths";

/** One comment of a source file: its text and the 1-based line it starts on. */
export interface SourceComment {
  readonly line: number;
  readonly text: string;
}

/** Every comment of a TypeScript/TSX source, once each, in order (the compiler finds them). */
export function commentsOf(file: string, text: string): SourceComment[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Map<number, SourceComment>();
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      const line = source.getLineAndCharacterOfPosition(r.pos).line + 1;
      seen.set(r.pos, { line, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

/** The notes kept outside the repository, by name. */
const OUTSIDE_NOTE =
  /\b(?:rollout-formats|sglang-native-api|tito-trajectory|ARCHITECTURE|STYLE)\.md\b/;

/** Each rule: what a comment must not contain, and how to say it. */
const RULES: ReadonlyArray<{ readonly pattern: RegExp; readonly says: string }> = [
  { pattern: /\b(?:issues?|PRs?|pull requests?)\s*#?\d+/i, says: "names an issue or PR number" },
  { pattern: /\b[\w.-]+\/[\w.-]+#\d+\b/, says: "names an issue or PR of another repository" },
  {
    pattern:
      /(?<![\w.-])shared\/[\w./-]*|\/work\/\w+|\b(?:rollout-formats|sglang-native-api|tito-trajectory|ARCHITECTURE|STYLE)\.md\b/,
    says: "cites a note that is not part of the repository",
  },
  { pattern: /\bspec §/, says: "cites a section of a spec kept outside the repository" },
  {
    pattern: /\bhttps?:\/\/(?!(?:127\.0\.0\.1|localhost|0\.0\.0\.0|example\.(?:com|org))\b)\S+/,
    says: "links a web page: put the source in docs/ and point there",
  },
];

/** Markdown files a comment names (a docs page, `./README.md`), to be found in the repository. */
const MARKDOWN_PATH = /(?<![\w/.-])(\.{0,2}\/?[\w.-]+(?:\/[\w.-]+)*\.md)\b/g;

/** The problems of one source file's comments; `file` is its path relative to `root`. */
export function checkComments(root: string, file: string, text: string): DocProblem[] {
  const problems: DocProblem[] = [];
  for (const comment of commentsOf(file, text)) {
    const at = (offset: number, message: string) => {
      const line = comment.line + (comment.text.slice(0, offset).match(/\n/g)?.length ?? 0);
      problems.push({ file, line, message });
    };
    for (const rule of RULES) {
      const found = rule.pattern.exec(comment.text);
      if (found) at(found.index, `${rule.says} ("${found[0]}")`);
    }
    for (const m of comment.text.matchAll(MARKDOWN_PATH)) {
      const path = m[1] ?? "";
      if (OUTSIDE_NOTE.test(path)) continue; // already named by the rule above
      const here = resolve(dirname(join(root, file)), path);
      if (!existsSync(join(root, path)) && !existsSync(here)) {
        at(m.index ?? 0, `names "${path}", which is not a document of the repository`);
      }
    }
  }
  return problems;
}
