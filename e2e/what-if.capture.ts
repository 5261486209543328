import { expect, test } from "@playwright/test";
import { atroposMismatchFile } from "./fixtures/mismatchFiles";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";
import { rolloutRouting, routedFile, trainRouting } from "./fixtures/routedRows";

// The what-if table and a token's deciders (docs/mismatch.md "Every correction replayed"), and
// the MoE routing summary: `npm run screenshots`. e2e/what-if.spec.ts and moe-routing.spec.ts
// check what these show.
test.use({ viewport: { width: 1400, height: 900 } });

test("what-if table and token deciders screenshots", async ({ page }) => {
  const file = atroposMismatchFile();
  await openRolloutFile(page, textFile("atropos-groups.jsonl", file.text), { rows: 24 });
  await page.getByRole("button", { name: "Compare corrections" }).click();
  await expect(page.getByTestId("what-if-table")).toBeVisible();
  await page.getByTestId("what-if").screenshot({ path: "docs/screenshots/what-if-table.png" });
  await page
    .locator('tr[data-correction="trm-k3"]')
    .getByRole("link", { name: `#${file.planted.row}` })
    .click();
  await page.getByRole("checkbox", { name: "mismatch" }).check();
  await page.locator(`[data-t="${file.planted.token}"]`).first().hover();
  const box = page.getByTestId("token-corrections");
  await expect(box.locator('li[data-correction="icepop"]')).toBeVisible();
  await box.screenshot({ path: "docs/screenshots/what-if-token.png" });
});

test("MoE routing summary screenshot", async ({ page }) => {
  await openRolloutFile(
    page,
    textFile(
      "routed.jsonl",
      routedFile({ rollout_routed_experts: rolloutRouting, train_routed_experts: trainRouting }),
    ),
  );
  await openRow(page);
  await page.getByRole("checkbox", { name: "mismatch" }).check();
  const box = page.getByTestId("mismatch-routing");
  await expect(box).toContainText("train_routed_experts");
  await box.screenshot({ path: "docs/screenshots/moe-routing.png" });
});
