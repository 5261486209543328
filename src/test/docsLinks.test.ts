import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFilesUnder } from "./codeShape";
import { checkComments, commentsOf } from "./commentRefs";
import {
  checkMarkdown,
  codeSpans,
  headingAnchors,
  linkTargets,
  listMarkdownFiles,
  repoPathOf,
} from "./markdownPaths";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the repository's Markdown stands on its own", () => {
  const files = listMarkdownFiles(ROOT);

  it("finds the docs", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/sglang.md", "docs/tito.md"]));
  });

  it("links only paths that exist, names only repository paths that exist, cites nothing outside", () => {
    const problems = files.flatMap((file) =>
      checkMarkdown(ROOT, file, readFileSync(join(ROOT, file), "utf8")),
    );
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  });
});

describe("code comments point only at the repository's own documents", () => {
  it("no comment names an issue number, a web page, a note outside the repository or a missing doc", () => {
    const files = ["server", "src", "test-support", "scripts", "bench", "e2e", "bin"]
      .filter((dir) => existsSync(join(ROOT, dir)))
      .flatMap((dir) => sourceFilesUnder(ROOT, dir));
    expect(files.length).toBeGreaterThan(300);
    const problems = files.flatMap((f) =>
      checkComments(ROOT, f, readFileSync(join(ROOT, f), "utf8")),
    );
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  });

  it("finds line, block and trailing comments, not strings", () => {
    const text = 'const a = "// not a comment"; // trailing\n/** block\n * two */\nconst b = 1;\n';
    expect(commentsOf("x.ts", text).map((c) => [c.line, c.text])).toEqual([
      [1, "// trailing"],
      [2, "/** block\n * two */"],
    ]);
  });

  it("flags issue numbers, outside notes, web pages and missing docs, with their lines", () => {
    const root = mkdtempSync(join(tmpdir(), "comment-refs-"));
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "here.md"), "# Here\n");
    const text = [
      "// See docs/here.md and http://127.0.0.1:3000.",
      "// Fixed in issue 6; upstream owner/repo#12 and PR #4544.",
      "/**",
      " * rollout-formats.md §3, https://github.com/x/y, docs/gone.md, spec §2.3",
      " */",
    ].join("\n");
    const found = checkComments(root, "src/a.ts", text).map((p) => [
      p.line,
      p.message.split(" (")[0],
    ]);
    expect(found).toEqual([
      [2, "names an issue or PR number"],
      [2, "names an issue or PR of another repository"],
      [4, "cites a note that is not part of the repository"],
      [4, "cites a section of a spec kept outside the repository"],
      [4, "links a web page: put the source in docs/ and point there"],
      [4, 'names "docs/gone.md", which is not a document of the repository'],
    ]);
  });
});

describe("checkMarkdown", () => {
  const root = mkdtempSync(join(tmpdir(), "docs-links-"));
  mkdirSync(join(root, "docs"));
  mkdirSync(join(root, "src", "core"), { recursive: true });
  writeFileSync(join(root, "docs", "here.md"), "# Here\n");
  writeFileSync(join(root, "src", "core", "a.ts"), "");
  const check = (text: string, file = "docs/page.md") => checkMarkdown(root, file, text);

  it("accepts links and paths that exist, relative to the page and to the root", () => {
    const text = [
      "# Local",
      "See [here](here.md), [the top](../docs/here.md#here), [root](/docs/here.md),",
      "![shot](./here.md), `src/core/a.ts`, `src/core/`, `docs/here.md#anchor`,",
      '[web](https://example.org/x.md), [anchor](#local), <img src="here.md">',
    ].join("\n");
    expect(check(text)).toEqual([]);
  });

  it("reports a link to a missing file with its line", () => {
    expect(check("one\n[gone](gone.md) and ![img](pics/none.png)")).toEqual([
      { file: "docs/page.md", line: 2, message: 'links "gone.md", which does not exist' },
      { file: "docs/page.md", line: 2, message: 'links "pics/none.png", which does not exist' },
    ]);
  });

  it("reports a link to a heading that does not exist, on another page or on the same one", () => {
    const text = "# Title\n[a](here.md#there) [b](#title) [c](#nowhere) [d](here.md#here)";
    expect(check(text).map((p) => p.message)).toEqual([
      'links "here.md#there", but that page has no heading with anchor "#there"',
      'links "#nowhere", but that page has no heading with anchor "#nowhere"',
    ]);
  });

  it("computes GitHub's heading anchors", () => {
    const anchors = headingAnchors(
      "## SGLang client (`server/sglang/`)\n### 2.4 `text` versus `output_ids`\n## A\n## A\n```\n# not a heading\n```",
    );
    expect([...anchors]).toEqual([
      "sglang-client-serversglang",
      "24-text-versus-output_ids",
      "a",
      "a-1",
    ]);
  });

  it("reports a backticked repository path that does not exist", () => {
    expect(check("Code: `src/core/missing.ts` and `server/sglang/`.")).toEqual([
      {
        file: "docs/page.md",
        line: 1,
        message: "names `src/core/missing.ts`, which does not exist in the repository",
      },
      {
        file: "docs/page.md",
        line: 1,
        message: "names `server/sglang/`, which does not exist in the repository",
      },
    ]);
  });

  it("reports any mention of the reference notes kept outside the repository", () => {
    const text = [
      "Written from `shared/reference/sglang-native-api.md`.",
      "```",
      "see /work/shared/fixtures",
      "```",
      "as summarised in the shared `reference/tito-trajectory.md` §1",
      "and shared/ARCHITECTURE.md",
    ].join("\n");
    expect(check(text).map((p) => p.line)).toEqual([1, 3, 5, 6]);
  });

  it("skips globs, placeholders, prose and other repositories' paths", () => {
    const text = [
      "`bench/*.bench.ts`, `<data>/episodes.jsonl`, `reference-{a,b}.jsonl`, `src/x y`,",
      "`horizon-rl/strands-sglang:src/strands_sglang/rollout.py`, `docs`, `npm test`",
      "```",
      "src/core/nowhere.ts [x](nowhere.md)",
      "```",
    ].join("\n");
    expect(check(text)).toEqual([]);
  });

  it("parses spans and link targets", () => {
    expect(codeSpans("a `x` b ``y ` z`` c")).toEqual(["x", "y ` z"]);
    expect(linkTargets('[a](b.md "title") `[c](d.md)` [e]: f.md')).toEqual(["b.md"]);
    expect(linkTargets("[e]: f.md")).toEqual(["f.md"]);
    expect(repoPathOf("docs/x.md#part")).toBe("docs/x.md");
    expect(repoPathOf("node_modules/x")).toBeUndefined();
  });
});
