import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { generateLine } from "../src/test/rolloutFileGenerator";

// The issue asks for >= 200 MB; ROLLOUT_E2E_MB lowers it on slow machines (the bench covers 1 GiB).
const TARGET_MB = Number(process.env.ROLLOUT_E2E_MB ?? 200);
const TOKENS_PER_LINE = 6000;
// 0-based line indices replaced by malformed text; reported 1-based in the errors panel.
const BAD_LINES = new Map([
  [2, "{this is not json"],
  [9, '{"format":"rollout-lens/v1","id":"broken"}'],
]);

let dir: string;
let file: string;
let lineCount = 0;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 1000 } });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-e2e-"));
  file = join(dir, "run.jsonl");
  const out = createWriteStream(file);
  let bytes = 0;
  while (bytes < TARGET_MB * 1024 * 1024) {
    const text = `${BAD_LINES.get(lineCount) ?? generateLine(lineCount, { tokens: TOKENS_PER_LINE })}\n`;
    bytes += Buffer.byteLength(text);
    lineCount += 1;
    if (!out.write(text)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
  expect((await stat(file)).size).toBeGreaterThanOrEqual(TARGET_MB * 1024 * 1024);
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("open a big file through the picker, sort, filter, open and step through samples", async ({
  page,
}) => {
  // React reports render loops and bad effects through console.error: the journey must log none.
  const reactErrors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().includes("Failed to load resource"))
      reactErrors.push(m.text());
  });
  await page.goto("/files");
  await page.getByLabel("rollout file").setInputFiles(file);
  await expect(page).toHaveURL(/\/files\/local-1$/);

  const table = page.getByTestId("rollout-table");
  // The first rows are browsable while the rest of the file is still being indexed.
  await expect(table.locator("[data-row]").first()).toBeVisible();
  await expect(page.getByText("indexed", { exact: true })).toBeVisible({ timeout: 120_000 });
  const good = lineCount - BAD_LINES.size;
  await expect(page.getByTestId("row-count")).toHaveText(
    `${good.toLocaleString("en-US")} / ${good.toLocaleString("en-US")} trajectories`,
  );

  const bad = page.getByLabel("bad lines");
  await expect(bad).toContainText("2 bad lines skipped");
  await expect(bad.locator("[data-line]")).toHaveText([/^line 3.*invalid JSON/, /^line 10/]);

  await page.getByRole("button", { name: /^reward/ }).click();
  await expect(page).toHaveURL(/sort=reward&desc=1/);
  await expect(table.locator('[data-row] [data-col="reward"]').first()).toHaveText("1.000");

  await page.getByRole("button", { name: "truncated" }).click();
  await expect(page).toHaveURL(/status=truncated/);
  const statusCells = table.locator('[data-row] [data-col="status"]');
  await expect
    .poll(async () => [...new Set(await statusCells.allTextContents())])
    .toEqual(["truncated"]);

  // Export the filtered set as slime JSONL: one line per shown trajectory, all truncated.
  const shown = Number(
    (await page.getByTestId("row-count").textContent())?.split(" / ")[0]?.replace(/,/g, ""),
  );
  await page.getByLabel("export format").selectOption("slime");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /^export/ }).click(),
  ]);
  const exported = (await readFile(await download.path(), "utf8")).trimEnd().split("\n");
  expect(exported).toHaveLength(shown);
  for (const text of exported.slice(0, 3)) {
    expect(JSON.parse(text)).toMatchObject({
      status: "truncated",
      response_length: expect.any(Number),
    });
  }

  await table.focus();
  await page.keyboard.press("j");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("k");
  const cursorRow = await table.locator("[data-cursor]").getAttribute("data-row");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/files/local-1/${cursorRow}\\?.*status=truncated`));
  await expect(page.getByTestId("sample-position")).toHaveText(/^2 of /);
  await expect(page.locator("[data-segment]").first()).toBeVisible();
  await expect(page.getByText("truncated", { exact: false }).first()).toBeVisible();

  await page.keyboard.press("n");
  await expect(page.getByTestId("sample-position")).toHaveText(/^3 of /);
  await page.keyboard.press("p");
  await expect(page.getByTestId("sample-position")).toHaveText(/^2 of /);
  await page.keyboard.press("p");
  await expect(page.getByTestId("sample-position")).toHaveText(/^1 of /);
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/files\/local-1\?.*status=truncated/);
  await expect(table.locator("[data-row]").first()).toBeVisible();
  expect(reactErrors).toEqual([]);
});
