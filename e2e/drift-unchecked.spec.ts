import { expect, test } from "@playwright/test";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";

test("a drift mode without input counts the row unchecked, never as a green 0 drifted", async ({
  page,
}) => {
  await page.goto(`/files/${await servedFileId(page, REAL_LLAMA_ROW)}`);
  await expect(page.getByTestId("row-count")).toHaveText("1 / 1 trajectories");
  await page.getByLabel("drift mode").selectOption("text");
  await page.getByRole("button", { name: "Check drift" }).click();
  const summary = page.getByTestId("file-drift-summary");
  await expect(summary.getByTestId("drift-unchecked")).toContainText("1 unchecked");
  await expect(summary.getByTestId("drift-unchecked")).toContainText("no input for the text check");
  await expect(summary.getByTestId("drift-none-checked")).toHaveText("no trajectory checked");
  await expect(summary).not.toContainText("trajectories drifted");

  // The round trip has its input (the ids): the same row is checked, and says so.
  await page.getByLabel("drift mode").selectOption("roundtrip");
  await page.getByRole("button", { name: "Check drift" }).click();
  await expect(summary).toContainText("of 1 trajectories drifted");
  await expect(summary.getByTestId("drift-unchecked")).toHaveCount(0);
});
