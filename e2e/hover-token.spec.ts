import { expect, test } from "@playwright/test";
import { flattenTrajectory } from "../src/core/layout/flatTrajectory";
import { buildDemo } from "../src/test/demoTrajectory";

const demo = buildDemo("calculator");
if (!demo) throw new Error("calculator demo missing");
const flat = flattenTrajectory(demo.trajectory);

test("hovering a model token shows its logprob; an unrecorded one says so", async ({ page }) => {
  await page.goto("/demo/calculator?token=230");
  const token = 230;
  await page.locator(`[data-t="${token}"]`).first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  await expect(page.getByTestId("detail-logprob")).toHaveText(
    (flat.logprobs[token] ?? 0).toFixed(4),
  );
  await expect(page.getByTestId("token-details")).toContainText("top-4 alternatives");

  // The first output token has no recorded logprob in this demo: never shown as 0.
  await page.locator('[data-t="203"]').first().hover();
  await expect(page.getByTestId("detail-logprob")).toHaveText("not recorded");
});
