import { expect, type Page, test } from "@playwright/test";

const MAX_TOKEN_ELEMENTS = 5_000;

const countTokens = (page: Page) => page.locator("[data-t]").count();

test("a 131,072-token trajectory keeps the DOM bounded while scrolling to the end", async ({
  page,
}) => {
  await page.goto("/demo/huge");
  await expect(page.locator('[data-t="0"]')).toBeVisible();
  const first = await countTokens(page);
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThan(MAX_TOKEN_ELEMENTS);

  const scroller = page.getByTestId("token-scroller");
  for (const fraction of [0.25, 0.5, 0.75]) {
    await scroller.evaluate((el, f) => {
      el.scrollTop = el.scrollHeight * f;
    }, fraction);
    await expect(page.getByTestId("token-scroller").locator("[data-t]").first()).toBeVisible();
    expect(await countTokens(page)).toBeLessThan(MAX_TOKEN_ELEMENTS);
  }
  await scroller.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await expect(page.locator('[data-t="131071"]').last()).toBeVisible();
  await expect(page.getByTestId("cutoff-marker")).toContainText("length");
  const last = await countTokens(page);
  expect(last).toBeGreaterThan(0);
  expect(last).toBeLessThan(MAX_TOKEN_ELEMENTS);
});
