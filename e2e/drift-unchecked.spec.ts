import { expect, type Page, test } from "@playwright/test";

// The real atropos row (Llama-3 ids, no tokenizer named, messages but no per-token text) that
// playwright.config.ts serves: its text check has no input.
const REAL_ROW = "atropos-llama3-row.jsonl";

async function serverFileId(page: Page, name: string): Promise<string> {
  const { files } = (await (await page.request.get("/api/files")).json()) as {
    files: { id: string; name: string }[];
  };
  const id = files.find((f) => f.name === name)?.id;
  if (id === undefined) throw new Error(`the server serves no ${name}`);
  return id;
}

test("a drift mode without input counts the row unchecked, never as a green 0 drifted", async ({
  page,
}) => {
  await page.goto(`/files/${await serverFileId(page, REAL_ROW)}`);
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
