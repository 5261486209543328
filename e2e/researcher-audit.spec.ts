import { expect, type Locator, test } from "@playwright/test";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { openRolloutFile, textFile } from "./fixtures/openRolloutFile";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";

/*
 * What a researcher sees going wrong on a laptop screen with files other tools wrote: each test
 * is a finding of the UI audit, and fails on the code before its fix.
 */

test.use({ viewport: { width: 1280, height: 800 } });

/** The element shows all of its content: it is not squeezed below its own height. */
async function expectNotSqueezed(panel: Locator) {
  await expect(panel).toBeVisible();
  const { height, content } = await panel.evaluate((el) => ({
    height: el.getBoundingClientRect().height,
    content: el.scrollHeight,
  }));
  expect(height).toBeGreaterThanOrEqual(content - 1);
}

test("at 1280×800 the bad lines panel of a file shows its lines, not a 2 px strip", async ({
  page,
}) => {
  const lines = [
    generateLine(0, { tokens: 300 }),
    '{"tokens": [1, 2',
    generateLine(1, { tokens: 300 }),
  ];
  await openRolloutFile(page, textFile("broken-middle.jsonl", `${lines.join("\n")}\n`), {
    rows: 2,
  });
  const panel = page.getByLabel("bad lines");
  await expectNotSqueezed(panel);
  await expect(panel).toContainText("1 bad line skipped");
  await expect(panel.getByText("line 2")).toBeVisible();
});

test("a file row's URL follows the selected token: a reload lands on the same row and token", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/0?sort=reward`);
  const token = page.locator('[data-t="40"]').first();
  await token.click();
  await expect(token).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(new RegExp(`/files/${id}/0\\?sort=reward&token=40$`));
  // The way back to the list keeps its sort and drops the row's token.
  const back = page
    .getByRole("navigation", { name: "trajectory navigation" })
    .getByRole("link")
    .first();
  await expect(back).toHaveAttribute("href", `/files/${id}?sort=reward`);
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/token=41$/);
  await page.reload();
  await expect(page.locator('[data-t="41"]').first()).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("detail-position")).toHaveText("#41");
});
