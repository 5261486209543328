// Resolves the e2e browser once, in Playwright's main process, and hands it to the workers through
// the environment they inherit (each worker loads the config again; only the first load prints).
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { type BrowserChoice, chooseBrowser } from "./chooseBrowser";

export interface E2eBrowser {
  executablePath: string;
  /** Extra environment for the browser process (fontconfig for the npm Chromium). */
  env: Record<string, string>;
  /** One line: which browser and why. */
  description: string;
}

const RESOLVED = "ROLLOUT_LENS_E2E_RESOLVED_BROWSER";

/** The e2e browser: resolved and printed on the first call in a run, reused by the workers. */
export async function resolveE2eBrowser(): Promise<E2eBrowser> {
  const inherited = process.env[RESOLVED];
  if (inherited !== undefined) return JSON.parse(inherited) as E2eBrowser; // written below
  const choice = chooseBrowser({
    env: process.env,
    exists: existsSync,
    platform: process.platform,
    arch: process.arch,
    playwrightPath: playwrightExecutable(),
  });
  const browser = await materialize(choice);
  process.env[RESOLVED] = JSON.stringify(browser);
  console.log(`e2e browser: ${browser.description}`);
  return browser;
}

function playwrightExecutable(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined; // a platform Playwright has no build for
  }
}

async function materialize(choice: BrowserChoice): Promise<E2eBrowser> {
  if (choice.source !== "npm") {
    return {
      executablePath: choice.path,
      env: {},
      description: `${choice.path} (${choice.reason})`,
    };
  }
  const { dir, version } = await unpackSparticuz();
  return {
    executablePath: join(dir, "chromium"),
    env: { FONTCONFIG_FILE: join(dir, "rollout-lens-fonts.conf") },
    description: `@sparticuz/chromium ${version} unpacked at ${dir} (${choice.reason})`,
  };
}

// @sparticuz/chromium unpacks into os.tmpdir() and trusts any file already there, so two runs at
// once (or one killed half-way) could launch a truncated binary. It unpacks instead into a fresh
// directory that is renamed into place, atomically, once complete.
async function unpackSparticuz(): Promise<{ dir: string; version: string }> {
  const manifest: unknown = JSON.parse(readFileSync(sparticuzManifest(), "utf8"));
  const version =
    typeof manifest === "object" && manifest !== null && "version" in manifest
      ? String(manifest.version)
      : "unknown";
  const dir = join(tmpdir(), `rollout-lens-e2e-chromium-${version}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(dir, "chromium"))) return { dir, version };

  const staging = mkdtempSync(`${dir}.partial-`);
  const savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = staging; // os.tmpdir() is where the package unpacks
  try {
    const sparticuz = (await import("@sparticuz/chromium")).default;
    await sparticuz.executablePath();
  } finally {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  }
  // The machine's fonts when it has a fontconfig, else the Open Sans the package ships.
  writeFileSync(
    join(staging, "rollout-lens-fonts.conf"),
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      "<fontconfig>",
      '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
      `  <dir>${join(dir, "fonts")}</dir>`,
      "</fontconfig>",
      "",
    ].join("\n"),
  );
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, "chromium"))) throw error; // not a run that finished first
  }
  return { dir, version };
}

// The package's own package.json, found above its entry point whatever the build folder depth
// (build/index.js in some releases, build/esm/index.js in others).
function sparticuzManifest(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium")));
  while (!existsSync(join(dir, "package.json")) || !dir.endsWith(join("@sparticuz", "chromium"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("@sparticuz/chromium: no package.json above its entry point");
    dir = up;
  }
  return join(dir, "package.json");
}
