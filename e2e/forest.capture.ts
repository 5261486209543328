import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { openRolloutFile } from "./fixtures/openRolloutFile";
import { writeForestFile } from "./forestFiles";

// Regenerates docs/screenshots/forest-*.png (`npm run screenshots`).
let dir: string;
test.use({ viewport: { width: 1400, height: 900 } });
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-forest-capture-"));
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

for (const theme of ["light", "dark"] as const) {
  test(`forest screenshots, ${theme}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openRolloutFile(page, fixturePath("atropos-rubiks-groups.jsonl"), { rows: 16 });
    await page.getByLabel("groups").locator("summary").click();
    await expect(page.getByTestId("forensics-summary")).toContainText("causes: 2 identical");
    await page.screenshot({ path: `docs/screenshots/forest-groups-${theme}.png` });
    await page
      .getByLabel("groups")
      .getByRole("row")
      .filter({ has: page.getByRole("button", { name: "L2", exact: true }) })
      .getByTestId("forest-link")
      .click();
    await page.getByTestId("branch-point").first().click();
    await expect(page.getByTestId("branch-children")).toBeVisible();
    await page.screenshot({ path: `docs/screenshots/forest-view-${theme}.png` });

    await openRolloutFile(page, await writeForestFile(dir));
    await page.getByLabel("groups").locator("summary").click();
    await page
      .getByLabel("groups")
      .getByRole("row")
      .filter({ hasText: "zero variance: equal-reward" })
      .getByTestId("forest-link")
      .click();
    await page.getByTestId("branch-point").first().click();
    await page.getByTestId("compare-children").first().click();
    await expect(page.getByTestId("compare-from")).toBeVisible();
    await page.screenshot({ path: `docs/screenshots/forest-compare-${theme}.png` });
  });
}
