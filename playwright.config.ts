import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import { resolveE2eBrowser } from "./e2e/browser/resolveBrowser";
import { driftRolloutsJsonl } from "./e2e/fixtures/driftRollouts";
import { generateLine } from "./src/test/rolloutFileGenerator";

// CHROMIUM_PATH, else a system Chromium, else Playwright's own, else the one inside the
// @sparticuz/chromium devDependency; never a download (e2e/browser/chooseBrowser.ts).
const browser = await resolveE2eBrowser();

// E2E_PORT lets several checkouts run their suites side by side.
const port = Number(process.env.E2E_PORT ?? 4317);
const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "rollout-lens-e2e-"));
process.env.E2E_DATA_DIR = dataDir;
// A rollout file named on the command line, which the live-tail test appends to while it is open.
const tailFile = join(dataDir, "growing.jsonl");
if (!existsSync(tailFile)) {
  writeFileSync(tailFile, [0, 1, 2].map((k) => `${generateLine(k, { tokens: 400 })}\n`).join(""));
}
process.env.E2E_TAIL_FILE = tailFile;
// Real Qwen3 ids with known drift, for the drift journey (served as srv-f2).
const driftFile = join(dataDir, "drift.jsonl");
writeFileSync(driftFile, driftRolloutsJsonl());
// One row of a real atropos file (Llama-3 ids, no tokenizer named), served as srv-f3.
const realLlamaFile = new URL("./e2e/fixtures/atropos-llama3-row.jsonl", import.meta.url).pathname;

export default defineConfig({
  testDir: "e2e",
  // `npm run screenshots` sets SCREENSHOTS and runs only the captures that write docs/screenshots/.
  testMatch: process.env.SCREENSHOTS ? "**/*.capture.ts" : "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  // Shared 2-core machines stall for seconds under load; waits are for visible state, never sleeps.
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  // The real app: a production build served by the real server, with the embedded simulator and a
  // fresh data directory per run.
  webServer: {
    command: `npx vite build --logLevel warn && node bin/rollout-lens.mjs serve ${tailFile} ${driftFile} ${realLlamaFile} --port ${port} --data ${dataDir}`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    headless: true,
    trace: "off",
    launchOptions: {
      executablePath: browser.executablePath,
      env: { ...process.env, ...browser.env },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-quic",
        "--no-first-run",
        "--disable-sync",
      ],
    },
  },
});
