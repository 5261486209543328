import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { openRolloutFile } from "./fixtures/openRolloutFile";

// A slime rollout dump written by real torch.save (scripts/fixtures/torch_fixtures.py), opened
// from the files page: read by byte range in the file worker, no conversion.

const dump = fileURLToPath(new URL("../src/test/fixtures/torch/slime-rollout.pt", import.meta.url));

test("a slime .pt rollout dump opens from the files page, routed experts on the token detail", async ({
  page,
}) => {
  await openRolloutFile(page, dump);
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await expect(page.getByTestId("row-count")).toContainText("36");
  await expect(page.getByText("slime", { exact: true }).first()).toBeVisible();

  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  // Token 40 is the first response token: sample 0's routed experts row 40 is [[0, 1], [1, 2]]
  // shifted by 40 * 3 (the fixture's pattern: (t * 3 + layer + j) % 8).
  await page.locator('[data-t="40"]').first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText("#40");
  await expect(page.getByTestId("detail-routed-experts")).toHaveText("L0: 0 1 · L1: 1 2");
  await expect(page.getByTestId("detail-top-p")).toBeVisible();
});

test("a rollout dump dropped with its train dump (either order) shows the trainer lane", async ({
  page,
}) => {
  const details = (name: string) =>
    fileURLToPath(new URL(`../src/test/fixtures/torch/dump-details/${name}`, import.meta.url));
  await openRolloutFile(page, [details("train_data/3_0.pt"), details("rollout_data/3.pt")], {
    rows: 12,
  });
  await page.getByLabel("mismatch lane a").fill("trainer");
  await page.getByLabel("mismatch lane b").fill("sampled");
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toContainText(
    "trained tokens of 12 trajectories compared",
  );
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  const toggle = page.getByRole("checkbox", { name: "mismatch" });
  if (!(await toggle.isChecked())) await toggle.check();
  await expect(page.getByLabel("lane a", { exact: true })).toHaveValue("trainer");
});
