import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import {
  backToFilteredTable,
  collectConsoleErrors,
  openAndStepSamples,
  sortAndFilterBigFileTable,
} from "./fixtures/bigFileJourney";
import { type BigRolloutFile, TARGET_MB, writeBigRolloutFile } from "./fixtures/bigRolloutFile";
import { openRolloutFile } from "./fixtures/openRolloutFile";

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
  const consoleErrors = collectConsoleErrors(page);
  await openRolloutFile(page, file);
  await expect(page).toHaveURL(/\/files\/local-1$/);

  await sortAndFilterBigFileTable(page, big.goodCount);

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

  await openAndStepSamples(page, "local-1");
  await expect(page.getByText("truncated", { exact: false }).first()).toBeVisible();
  await page.keyboard.press("p");
  await expect(page.getByTestId("sample-position")).toHaveText(/^1 of /);
  await backToFilteredTable(page, "local-1");
  expect(consoleErrors).toEqual([]);
});
