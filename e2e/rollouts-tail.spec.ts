import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { expect, test } from "@playwright/test";
import { Hono } from "hono";
import { filesRoutes } from "../server/routes/files";
import { generateLine } from "../src/test/rolloutFileGenerator";

// Vite proxies /api to this port (vite.config.ts); the files route is served there in-process.
const API_PORT = Number(process.env.ROLLOUT_LENS_API_PORT ?? 5174);
const line = (k: number) => `${generateLine(k, { tokens: 400 })}\n`;

let dir: string;
let file: string;
let server: ReturnType<typeof serve>;

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-tail-"));
  file = join(dir, "growing.jsonl");
  await writeFile(file, [0, 1, 2].map(line).join(""));
  const app = new Hono().route("/api/files", filesRoutes({ files: [file], dataDir: dir }));
  server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: API_PORT });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
});
test.afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

test("a server file that grows shows new lines as they land, until tail is paused", async ({
  page,
}) => {
  await page.goto("/files");
  await page.getByRole("link", { name: "growing.jsonl" }).click();
  await expect(page).toHaveURL(/\/files\/srv-f1$/);
  const rows = page.getByTestId("row-count");
  await expect(rows).toHaveText("3 / 3 trajectories");

  await appendFile(file, line(3) + line(4));
  await expect(rows).toHaveText("5 / 5 trajectories");

  // A half-written line stays pending until its newline lands.
  const next = line(5);
  await appendFile(file, next.slice(0, 100));
  await expect(page.getByTestId("line-count")).toHaveText("5 lines");
  await appendFile(file, next.slice(100));
  await expect(rows).toHaveText("6 / 6 trajectories");

  await page.getByRole("button", { name: /pause tail/ }).click();
  await appendFile(file, line(6));
  // Nothing may arrive while paused: give the 1 s poll three chances, then check once.
  await page.waitForTimeout(3000);
  await expect(rows).toHaveText("6 / 6 trajectories");
  await page.getByRole("button", { name: /resume tail/ }).click();
  await expect(rows).toHaveText("7 / 7 trajectories");
});
