import { expect, test } from "@playwright/test";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

// Rows that never say whose ids they hold (no tokenizer or model field, and ids that start like
// no known family's chat template): drift is not checked with a guessed vocabulary, in the file's
// scan and on a row's drift page alike, until a tokenizer is picked.

const lines = [0, 1, 2].map((k) => generateLine(k, { tokens: 80 }));

test("drift on ids of no known family is unchecked, file and row, and says to pick a tokenizer", async ({
  page,
}) => {
  await openRolloutFile(page, textFile("anonymous.jsonl", `${lines.join("\n")}\n`), { rows: 3 });
  await page.getByRole("button", { name: "Check drift" }).click();
  const unchecked = page.getByTestId("file-drift-summary").getByTestId("drift-unchecked");
  await expect(unchecked).toContainText("3 unchecked");
  await expect(unchecked).toContainText("tokenizer unknown");

  await openRow(page, 0);
  await page.getByRole("link", { name: "Drift", exact: true }).click();
  const panel = page.getByTestId("drift-panel");
  await expect(panel.getByTestId("drift-unknown-tokenizer")).toContainText(
    "Not checked: tokenizer unknown",
  );
  await expect(panel.getByTestId("drift-summary")).toHaveCount(0);
});
