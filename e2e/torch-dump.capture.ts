import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { expectRowCount, openRolloutFile } from "./fixtures/openRolloutFile";
import { startView } from "./fixtures/viewServer";

// Regenerates docs/screenshots/torch-dump-*.png, dump-details-mismatch.png and prime-rl-run-*.png
// (`npm run screenshots`): a slime `.pt` rollout dump dropped on the files page, a miles
// --dump-details folder with its train dump's trainer lane, and a prime-rl output directory.

test.use({ viewport: { width: 1400, height: 900 } });
test.describe.configure({ timeout: 180_000 });

test("a slime .pt dump from the files page", async ({ page }) => {
  await openRolloutFile(page, fixturePath("torch/slime-rollout.pt"));
  await expect(page.getByTestId("row-count")).toContainText("36");
  await page.screenshot({ path: "docs/screenshots/torch-dump-files.png" });
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  // Decoded once the Llama-3 tokenizer (chosen from the first ids) has loaded.
  await expect(page.getByTestId("token-scroller")).toContainText("<|begin_of_text|>", {
    timeout: 60_000,
  });
  await page.locator('[data-t="40"]').first().hover();
  await expect(page.getByTestId("detail-routed-experts")).toHaveText("L0: 0 1 · L1: 1 2");
  await page.screenshot({ path: "docs/screenshots/torch-dump-trajectory.png" });
});

test("a --dump-details folder: the train dump's trainer lane in the mismatch view", async ({
  page,
}) => {
  const view = await startView(fixturePath("torch/dump-details"), "dump-details");
  try {
    await page.goto(`${view.origin}/files`);
    await page.getByRole("region", { name: "run dump-details" }).getByRole("link").first().click();
    await expectRowCount(page, 12);
    await page.getByTestId("rollout-table").focus();
    await page.keyboard.press("Enter");
    const toggle = page.getByRole("checkbox", { name: "mismatch" });
    if (!(await toggle.isChecked())) await toggle.check();
    await expect(page.getByLabel("lane a")).toHaveValue("trainer");
    await expect(page.getByTestId("token-scroller")).toContainText("<|begin_of_text|>", {
      timeout: 60_000,
    });
    await page.locator('[data-t="50"]').first().hover();
    await expect(page.getByTestId("detail-advantage")).toBeVisible();
    await page.screenshot({ path: "docs/screenshots/dump-details-mismatch.png" });
  } finally {
    await view.stop();
  }
});

test("a prime-rl output directory", async ({ page }) => {
  const view = await startView(fixturePath("prime-rl-run"), "prime-rl-run");
  try {
    await page.goto(`${view.origin}/files`);
    const run = page.getByRole("region", { name: "run prime-rl-run" });
    await expect(run.getByTestId("run-progress")).toContainText("2 steps", { timeout: 90_000 });
    await expect(run.getByTestId("run-reward-count")).toHaveText("2 of 2 steps");
    await page.screenshot({ path: "docs/screenshots/prime-rl-run-files.png" });
    await run
      .getByRole("link", { name: /^step \d/ })
      .first()
      .click();
    await expectRowCount(page, 3);
    await page.getByTestId("rollout-table").focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("token-scroller")).toContainText("<|begin_of_text|>", {
      timeout: 60_000,
    });
    await page.screenshot({ path: "docs/screenshots/prime-rl-run-trajectory.png" });
  } finally {
    await view.stop();
  }
});
