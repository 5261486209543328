import { expect, test } from "@playwright/test";

// Tall enough that every row of the small demos is mounted at once.
test.use({ viewport: { width: 1400, height: 1700 } });

test("calculator demo shows its segments, the tool card and the answer", async ({ page }) => {
  await page.goto("/demo/calculator");
  const headers = page.locator("[data-segment]");
  await expect(headers).toHaveCount(4);
  await expect(headers.nth(0)).toContainText("prompt");
  await expect(headers.nth(1)).toContainText("model output");
  await expect(headers.nth(1)).toContainText("finish: stop");
  await expect(headers.nth(2)).toContainText("tool result");
  await expect(headers.nth(3)).toContainText("turn 3");

  const card = page.getByTestId("tool-call-card");
  await expect(card).toHaveCount(1);
  await expect(card).toContainText("calculator");
  await expect(card).toContainText('{"expression":"15*7 + 23"}');
  await expect(card).toContainText("128");
  await expect(card).toContainText("ok");

  await expect(page.getByTestId("token-scroller")).toContainText("bottles");
  await expect(page.getByTestId("legend")).toContainText("tool result (mask 0)");
  await expect(page.getByTestId("cutoff-marker")).toHaveCount(0);
});

test("an episode cut by the iteration limit is marked at its last token", async ({ page }) => {
  await page.goto("/demo/cutoff");
  const marker = page.getByTestId("cutoff-marker");
  await expect(marker).toContainText("iteration limit: max_tool_iters (2) reached");
  await expect(marker).toContainText("after token #348");
  await expect(page.locator('[data-t="348"]')).toHaveClass(/cut/);
  await expect(page.getByTestId("tool-call-card").nth(1)).toContainText("not run (episode cut)");
});

test("find and next low-confidence token select and reveal the match", async ({ page }) => {
  await page.goto("/demo/calculator");
  await page.getByLabel("find", { exact: true }).fill("bottles**");
  await page.getByRole("button", { name: "Find next" }).click();
  const selected = page.locator('[data-t][aria-selected="true"]');
  await expect(selected).toHaveText(" bottles");
  await expect(page).toHaveURL(/token=\d+/);

  await page.getByLabel("low-confidence threshold").fill("-1.5");
  await page.getByRole("button", { name: "Next low-confidence" }).click();
  await page.mouse.move(0, 0);
  const logprob = Number(await page.getByTestId("detail-logprob").textContent());
  expect(logprob).toBeLessThan(-1.5);
});
