import { expect, test } from "@playwright/test";
import { nemoRlMismatchFile } from "./fixtures/mismatchFiles";
import { openRolloutFile, textFile } from "./fixtures/openRolloutFile";

// The file-wide mismatch charts of a NeMo-RL dump (docs/mismatch.md, README): `npm run screenshots`.
test.use({ viewport: { width: 1400, height: 900 } });

for (const theme of ["light", "dark"] as const) {
  test(`file-wide mismatch screenshot, ${theme}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openRolloutFile(page, textFile("train_data_step1.jsonl", nemoRlMismatchFile(200).text));
    await page.getByRole("button", { name: "Check mismatch" }).click();
    const panel = page.getByTestId("file-mismatch");
    await panel.getByTestId("mismatch-worst").waitFor();
    // The worst tokens' text, decoded by the tokenizer worker.
    await expect(panel.getByTestId("mismatch-worst-text").first()).not.toHaveText("…");
    await panel.screenshot({ path: `docs/screenshots/mismatch-file-${theme}.png` });
  });
}
