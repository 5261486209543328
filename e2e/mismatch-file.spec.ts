import { expect, type Page, test } from "@playwright/test";
import { atroposMismatchFile, nemoRlMismatchFile } from "./fixtures/mismatchFiles";
import { expectRowCount, openRolloutFile, textFile } from "./fixtures/openRolloutFile";

// The file-wide mismatch picture: "Check mismatch" on a NeMo-RL dump (prev_logprobs vs
// generation_logprobs) and an atropos file (ref_logprobs vs inference_logprobs), on the scan
// worker pool; the histogram, the worst tokens (linking to each token), the column and filter.

async function open(page: Page, name: string, text: string, rows: number) {
  await openRolloutFile(page, textFile(name, text), { rows });
}

for (const { name, file, format } of [
  { name: "train_data_step1.jsonl", file: nemoRlMismatchFile(), format: "nemo-rl" },
  { name: "atropos-groups.jsonl", file: atroposMismatchFile(), format: "atropos" },
]) {
  test(`${format}: the histogram of r and the worst tokens, linking to the token`, async ({
    page,
  }) => {
    await open(page, name, file.text, 24);
    const { planted } = file;
    await page.getByRole("button", { name: "Check mismatch" }).click();
    await expect(page.getByTestId("file-mismatch-summary")).toContainText(
      "trained tokens of 24 trajectories compared",
    );
    await expect(page.getByTestId("file-mismatch-summary")).toContainText(
      `max |δ| ${Math.abs(planted.delta).toFixed(3)}`,
    );
    const histogram = page.getByTestId("mismatch-histogram");
    await expect(histogram).toContainText("outside 5×");
    expect(await histogram.locator("rect").count()).toBeGreaterThan(8);
    await expect(page.getByTestId("mismatch-scatter").locator("circle").first()).toBeVisible();
    await expect(page.getByTestId("mismatch-by-position").locator("rect").first()).toBeVisible();
    await expect(page.getByTestId("mismatch-by-probability").locator("rect").first()).toBeVisible();

    // The column: the planted row's max |δ|.
    const cell = page.locator(`[data-row="${planted.row}"] [data-col="mismatch"]`);
    await expect(cell).toContainText(Math.abs(planted.delta).toFixed(3));

    // The filter keeps the rows beyond 5× only: the planted one among them.
    await page.getByRole("button", { name: "ln 5 (5×)" }).click();
    await expect(page).toHaveURL(/mismatch=1\.609/);
    await expect(page.locator(`[data-row="${planted.row}"]`)).toBeVisible();
    const shown = await page.locator("[data-row]").count();
    expect(shown).toBeLessThan(24);
    await page.getByRole("button", { name: "all", exact: true }).click();
    await expectRowCount(page, 24);

    // The worst token first; its link opens the trajectory on that token.
    const first = page.getByTestId("mismatch-worst").locator("tbody tr").first();
    await expect(first.locator("td").first()).toHaveText(String(planted.line));
    await expect(first.getByTestId("mismatch-worst-delta")).toHaveText(planted.delta.toFixed(4));
    await first.getByRole("link", { name: `#${planted.token}` }).click();
    await expect(page).toHaveURL(
      new RegExp(`/files/local-1/${planted.row}\\?token=${planted.token}$`),
    );
    await expect(page.getByTestId("detail-position")).toHaveText(`#${planted.token}`);
  });
}

test("the scan can be cancelled and started again", async ({ page }) => {
  const big = nemoRlMismatchFile(6_000);
  await open(page, "train_data_step9.jsonl", big.text, 6_000);
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByLabel("mismatch scan progress")).toBeVisible();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("button", { name: "Check mismatch" })).toBeEnabled();
  await expect(page.getByTestId("file-mismatch-summary")).toHaveCount(0);
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toContainText(
    "trained tokens of 6,000 trajectories compared",
  );
});

test("the picker chooses the two lanes and the correction the scan replays", async ({ page }) => {
  const file = atroposMismatchFile();
  const { planted } = file;
  await open(page, "atropos-groups.jsonl", file.text, 24);
  const summary = page.getByTestId("file-mismatch-summary");
  const check = page.getByRole("button", { name: "Check mismatch" });
  // The default: reference vs sampled, token truncation at C = 2.
  await check.click();
  await expect(summary).toContainText("clipped (token-trunc, C = 2)");
  const first = page.getByTestId("mismatch-worst").locator("tbody tr").first();
  await expect(first.getByTestId("mismatch-worst-delta")).toHaveText(planted.delta.toFixed(4));
  // The charts and the table name the lanes compared, not "train"/"rollout" whatever they are.
  await expect(page.getByTestId("mismatch-histogram")).toContainText("r = π_reference / π_sampled");
  await expect(page.getByTestId("mismatch-worst-lane-a")).toHaveText("logp reference");
  await expect(page.getByTestId("mismatch-worst-lane-b")).toHaveText("logp sampled");

  // One lane alone is refused; both lanes swapped flip δ; masking with bounds [1/1.5, 1.5].
  await page.getByLabel("mismatch lane a").fill("sampled");
  await expect(page.getByTestId("mismatch-picker")).toContainText("name both lanes");
  await expect(check).toBeDisabled();
  await page.getByLabel("mismatch lane b").fill("reference");
  await page.getByLabel("mismatch correction").selectOption("token-mask");
  await page.getByLabel("mismatch threshold").fill("1.5");
  await check.click();
  await expect(summary).toContainText(
    "trained tokens of 24 trajectories compared (sampled vs reference)",
  );
  await expect(summary).toContainText("masked (token-mask, outside [0.667, 1.5])");
  await expect(first.getByTestId("mismatch-worst-delta")).toHaveText((-planted.delta).toFixed(4));
  await expect(page.getByTestId("mismatch-scatter")).toContainText(
    "sampled vs reference probability",
  );
  await expect(page.getByTestId("mismatch-worst-lane-a")).toHaveText("logp sampled");
  const masked = Number(
    (await summary.textContent())?.match(/1\.5\]\): ([\d,]+)/)?.[1]?.replace(/,/g, ""),
  );
  expect(masked).toBeGreaterThan(0);

  // The worst token's text, decoded by the file's tokenizer: the piece its trajectory view shows.
  const text = first.getByTestId("mismatch-worst-text");
  await expect(text).not.toHaveText("…");
  const piece = await text.textContent();
  expect(piece).toMatch(/^".+"$/);

  // A lane no trajectory has: nothing compared, said so.
  await page.getByLabel("mismatch lane b").fill("trainer");
  await check.click();
  await expect(summary).toContainText("no trajectory has both lanes sampled and trainer");
});

test("the worst tokens show each id's decoded text, as the token view shows it", async ({
  page,
}) => {
  const file = atroposMismatchFile();
  await open(page, "atropos-groups.jsonl", file.text, 24);
  await page.getByRole("button", { name: "Check mismatch" }).click();
  const worst = page.getByTestId("mismatch-worst");
  await expect(worst.locator("th", { hasText: /^text$/ })).toBeVisible();
  const first = worst.locator("tbody tr").first();
  const text = first.getByTestId("mismatch-worst-text");
  await expect(text).toHaveText(/^".+"$/);
  const piece = await text.textContent();
  await first.getByRole("link", { name: `#${file.planted.token}` }).click();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${file.planted.token}`);
  await expect(page.getByTestId("token-details").locator("code").first()).toHaveText(piece ?? "");
});

test("a JSON document of NeMo-RL records: the scan reads its records, as the table does", async ({
  page,
}) => {
  const file = nemoRlMismatchFile();
  const records = file.text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  await openRolloutFile(
    page,
    textFile("train_data_step1.json", JSON.stringify(records), "application/json"),
    { rows: 24 },
  );
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toContainText(
    "trained tokens of 24 trajectories compared",
  );
  await expect(page.getByTestId("file-mismatch-summary")).toContainText(
    `max |δ| ${Math.abs(file.planted.delta).toFixed(3)}`,
  );
  const cell = page.locator(`[data-row="${file.planted.row}"] [data-col="mismatch"]`);
  await expect(cell).toContainText(Math.abs(file.planted.delta).toFixed(3));
});
