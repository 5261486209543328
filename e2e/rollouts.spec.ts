import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type BigRolloutFile, TARGET_MB, writeBigRolloutFile } from "./fixtures/bigRolloutFile";

let dir: string;
let file: string;
let big: BigRolloutFile;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 1000 } });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-e2e-"));
  file = join(dir, "run.jsonl");
  big = await writeBigRolloutFile(file);
  expect(big.bytes).toBeGreaterThanOrEqual(TARGET_MB * 1024 * 1024);
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
  const good = big.goodCount;
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
