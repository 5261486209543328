import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { openRolloutFile, openRow } from "./fixtures/openRolloutFile";

// The per-turn prefix check on a Qwen3 record whose second turn's history lost the first turn's
// <think> block (docs/templates.md, README): `npm run screenshots`.
const STRIPPED = fileURLToPath(
  new URL("../src/test/fixtures/qwen3-stripped-thinking.jsonl", import.meta.url),
);

test.use({ viewport: { width: 1400, height: 760 } });

for (const theme of ["light", "dark"] as const) {
  test(`turn strip screenshot, ${theme}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openRolloutFile(page, STRIPPED);
    await openRow(page);
    const strip = page.getByTestId("turn-strip");
    await expect(strip.getByTestId("turn-explain")).toContainText("Turn 2: FORK");
    await expect(page.locator('[data-t][class*="turnRemoved"]').first()).toBeVisible();
    await page.screenshot({ path: `docs/screenshots/turn-strip-${theme}.png` });
  });
}
