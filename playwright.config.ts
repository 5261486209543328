import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";

// Debian's Chromium (never `playwright install`, which downloads); CHROMIUM_PATH overrides it, and
// Playwright's own browser is used where neither exists.
const systemChromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const executablePath = existsSync(systemChromium) ? systemChromium : undefined;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"]],
  // The app alone for now (demo routes need no server); switch to the real server when it serves dist/.
  webServer: {
    command: "npx vite --port 4317 --strictPort",
    url: "http://127.0.0.1:4317",
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
  use: {
    baseURL: "http://127.0.0.1:4317",
    headless: true,
    trace: "off",
    launchOptions: {
      executablePath,
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
