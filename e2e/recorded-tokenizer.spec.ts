import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { expectRowCount, openRolloutFile, openRow } from "./fixtures/openRolloutFile";

// Two real atropos groups with Llama-3 ids and no tokenizer named anywhere in the record.
const ATROPOS = fileURLToPath(
  new URL("../src/test/fixtures/atropos-rubiks-trimmed.jsonl", import.meta.url),
);

test("a recorded file's ids read as text, decoded with the tokenizer its ids belong to", async ({
  page,
}) => {
  await openRolloutFile(page, ATROPOS);
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await expectRowCount(page, 4);

  // The file names no tokenizer: the choice comes from its first ids, and says so.
  const tokenizer = page.getByLabel("tokenizer", { exact: true });
  await expect(tokenizer.locator("option:checked")).toHaveText("auto: llama3");
  await expect(page.getByTestId("tokenizer-reason")).toHaveText(
    "recognised from the first token ids",
  );
  // Atropos records no logprobs: the chart says so instead of drawing empty axes.
  await expect(page.getByLabel("mean logprob by position")).toContainText("no logprobs recorded");

  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-1\/0$/);
  const first = page.locator('[data-t="0"]');
  await expect(first).toHaveText("<|begin_of_text|>");
  await expect(page.locator('[data-t="1"]')).toHaveText("<|start_header_id|>");
  await expect(page.getByTestId("logprob-chart")).toContainText("no logprobs recorded");

  // A pick overrides the choice for every view of the file; "auto" gives it back.
  await tokenizer.selectOption("qwen3");
  await expect(first).not.toHaveText("<|begin_of_text|>");
  await expect(first).not.toHaveText(/^#/);
  await expect(page.getByTestId("tokenizer-reason")).toHaveCount(0);
  await tokenizer.selectOption("");
  await expect(first).toHaveText("<|begin_of_text|>");
});
