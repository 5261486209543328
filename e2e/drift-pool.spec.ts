import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { driftRolloutsJsonl } from "./fixtures/driftRollouts";
import { openRolloutFile } from "./fixtures/openRolloutFile";

// The drift e2e rows (real Qwen3 ids: 3 of every 5 drift) repeated into a file of several MB, so
// the scan is cut into many ranges and runs on more than one drift worker where cores allow.
const COPIES = 8_000;
let dir: string;
let file: string;

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-drift-pool-"));
  file = join(dir, "many.jsonl");
  await writeFile(file, driftRolloutsJsonl().repeat(COPIES));
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("a file's drift check can be cancelled, then runs over the whole file on the worker pool", async ({
  page,
}) => {
  const rows = 5 * COPIES;
  await openRolloutFile(page, file, { rows });

  const bar = page.getByTestId("file-drift");
  const check = bar.getByRole("button", { name: "Check drift" });
  await check.click();
  await bar.getByRole("button", { name: "Cancel" }).click();
  // Cancelled: nothing reported, no error, and the check can start again.
  await expect(check).toBeEnabled();
  await expect(page.getByTestId("file-drift-summary")).toHaveCount(0);
  await expect(bar).not.toContainText("cancelled");

  await check.click();
  const summary = page.getByTestId("file-drift-summary");
  await expect(summary).toContainText(
    `${(3 * COPIES).toLocaleString("en-US")} of ${rows.toLocaleString("en-US")} trajectories drifted (60.0%)`,
  );
  await expect(summary.getByTestId("drift-path")).toHaveText("fast round trip");
  // Rows from the last range landed on their own table rows (line, descending: the last row first).
  const lineHeader = page.getByTestId("rollout-table").getByRole("button", { name: /^line/ });
  await lineHeader.click();
  await lineHeader.click();
  await expect(page).toHaveURL(/desc=1/);
  const last = page.getByTestId("rollout-table").locator("[data-row]").first();
  await expect(last).toContainText("prompt-split");
  await expect(last.locator('[data-col="drift"]')).toHaveText("1×");
});
