import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildServer } from "../scripts/buildServer";
import { fixturePath } from "../src/test/fixtureFiles";
import { runCli } from "../test-support/runCli";
import { exitOnClosedPipe } from "./cli";
import { driftCommand } from "./commands/drift";
import { validateCommand } from "./commands/validate";

const root = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

describe("rollout-lens command line", () => {
  it("lists every command under --help and exits 0", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const name of ["serve", "view", "validate", "drift", "merge-reports", "sim"]) {
      expect(r.out).toMatch(new RegExp(`^  ${name} `, "m"));
    }
  });

  it.each([
    ["serve", ["--port <N>", "(default: 5173)", "--no-demo", "--tokenizer <NAME|PATH>"]],
    ["view", ["--no-open", "(default: 5173)", '(default: "127.0.0.1")']],
    ["validate", ["--format <F>", '(default: "auto")', "--json", "--shard <I/N>", "Exit status"]],
    [
      "drift",
      ["--tokenizer <NAME|PATH>", '(default: "roundtrip")', "--jobs <N>", "--shard <I/N>", "globs"],
    ],
    ["merge-reports", ["--json", "reported twice", "Exit status (drift's, on the merged report)"]],
    ["sim", ["--policy <P>", '(default: "calculator")', '(default: "30000")', "--fault-503"]],
  ])("`%s --help` lists its options with defaults and exits 0", async (name, expected) => {
    const r = await runCli([name, "--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: rollout-lens ${name} [options]`);
    // Commander wraps descriptions to the terminal width.
    const flat = r.out.replace(/\s+/g, " ");
    for (const text of expected) expect(flat).toContain(text);
    // `help COMMAND` is the same page.
    expect((await runCli(["help", name])).out).toBe(r.out);
  });

  it("prints the package version with --version and -V", async () => {
    expect(await runCli(["--version"])).toEqual({ code: 0, out: pkg.version, err: "" });
    expect(await runCli(["-V"])).toEqual({ code: 0, out: pkg.version, err: "" });
  });

  it("prints the command's usage and exits 2 on an unknown option", async () => {
    const r = await runCli(["drift", "--tokeniser", "llama3", "x.jsonl"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--tokeniser'");
    expect(r.err).toContain("Usage: rollout-lens drift [options] [FILE...]");
    expect(r.out).toBe("");
  });

  it("prints the usage and exits 2 on an unknown command or none", async () => {
    const unknown = await runCli(["inspect", "x.jsonl"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown command 'inspect'");
    expect(unknown.err).toContain("Usage: rollout-lens [options] [command]");
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("Usage: rollout-lens [options] [command]");
  });

  it("exits 2 when an option lacks its value", async () => {
    const r = await runCli(["validate", "--format"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("option '--format <F>' argument missing");
  });

  it("runs a command and returns its exit code, naming the file, line and field of bad lines", async () => {
    const good = await runCli(["validate", fixturePath("reference-slime.jsonl")]);
    expect(good.code).toBe(0);
    const bad = await runCli(["validate", fixturePath("validate-mixed.jsonl")]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/validate-mixed\.jsonl: .*2 bad/);
    expect(bad.out).toMatch(/line 3: invalid JSON/);
    expect(bad.out).toMatch(/line 5 \[loss_mask\]/);
  });

  it("exits 2 from the real binary on a usage error, 0 on --help", () => {
    const bin = join(root, "bin/rollout-lens.mjs");
    const bad = spawnSync(process.execPath, [bin, "validate", "--nope"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Usage: rollout-lens validate");
    const help = spawnSync(process.execPath, [bin, "sim", "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--fault-seed <N>");
  });
});

describe("commands run in-process parse with the same definitions", () => {
  it("answers --help with 0 and a usage error with 2, through the given io", async () => {
    for (const command of [driftCommand, validateCommand]) {
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
      expect(await command(["--help"], io)).toBe(0);
      expect(out.join("\n")).toMatch(/^Usage: (drift|validate) \[options\] \[FILE\.\.\.\]/);
      expect(await command(["--bogus", "x.jsonl"], io)).toBe(2);
      expect(err.join("\n")).toContain("unknown option '--bogus'");
    }
  });
});

describe("lazy command modules", () => {
  it("loads neither the server nor tokenizers nor any npm package but commander for --help", async () => {
    const outdir = mkdtempSync(join(tmpdir(), "rollout-lens-build-"));
    const { outputs } = await buildServer(outdir, { tokenizers: false });
    const key = (file: string) => relative(root, join(outdir, file));
    /** Inputs and npm packages an output loads before its code runs (static imports, transitively). */
    function staticClosure(file: string) {
      const inputs = new Set<string>();
      const packages = new Set<string>();
      const seen = new Set<string>();
      const visit = (output: string) => {
        if (seen.has(output)) return;
        seen.add(output);
        const meta = outputs[output];
        if (!meta) throw new Error(`no output ${output}`);
        for (const input of Object.keys(meta.inputs)) inputs.add(input);
        for (const imp of meta.imports) {
          if (imp.kind !== "import-statement") continue;
          if (imp.external) packages.add(imp.path);
          else visit(imp.path);
        }
      };
      visit(key(file));
      return { inputs: [...inputs], packages: [...packages].filter((p) => !p.startsWith("node:")) };
    }
    const shell = staticClosure("cli.js");
    expect(shell.packages).toEqual(["commander"]);
    // Of the core, only the format ids and which of them are text-only (constants whose imports are
    // type-only) for `--format`, and the corrections' thresholds (plain data) for `mismatch --help`.
    const formatTables = [
      "src/core/formats/types.ts",
      "src/core/formats/idsAbsent.ts",
      "src/core/mismatch/corrections/catalog.ts",
    ];
    expect(
      shell.inputs.filter(
        (i) => /server\/(index|app|tokenizers|drift)|src\//.test(i) && !formatTables.includes(i),
      ),
    ).toEqual([]);
    // The commands themselves are dynamic imports of their own chunks, holding the heavy parts.
    const dynamic = outputs[key("cli.js")]?.imports.filter((i) => i.kind === "dynamic-import");
    const drift = dynamic?.map((i) => staticClosure(relative(outdir, join(root, i.path))));
    expect(drift?.some((c) => c.inputs.includes("server/tokenizers/compactTokenizers.ts"))).toBe(
      true,
    );
    expect(drift?.some((c) => c.packages.includes("hono"))).toBe(true);
    // JSON lines never load the Parquet reader: it is imported when a file's bytes say Parquet
    // (or torch.save), so the scanning commands and each scan worker start without it.
    const chunkOf = (entry: string) =>
      Object.keys(outputs).find((o) => outputs[o]?.entryPoint === entry) ?? `no chunk of ${entry}`;
    for (const entry of ["server/commands/mismatch.ts", "server/commands/validate.ts"]) {
      expect(staticClosure(relative(outdir, join(root, chunkOf(entry)))).packages).not.toContain(
        "hyparquet",
      );
    }
    const worker = staticClosure("scan.worker.js");
    expect(worker.inputs).toContain("server/files/readLines.ts");
    expect(worker.packages.filter((p) => p.startsWith("hyparquet"))).toEqual([]);
  });
});

describe("a closed pipe on stdout", () => {
  it("ends the command with exit 0 on EPIPE (`... | head -2`), and rethrows other errors", () => {
    const exits: number[] = [];
    const stream = new PassThrough();
    exitOnClosedPipe(stream, (code) => exits.push(code));
    stream.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(exits).toEqual([0]);
    expect(() => stream.emit("error", new Error("disk full"))).toThrow("disk full");
  });
});
