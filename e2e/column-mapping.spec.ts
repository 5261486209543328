import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parquetWriteBuffer } from "hyparquet-writer";
import { expectRowCount, openRolloutFile } from "./fixtures/openRolloutFile";

// A Parquet table, a JSON table and a JSONL dump no known producer wrote: the column-mapping
// dialog offers the suggested mapping, the user completes it, the table reads through it, and the
// mapping is remembered for tables of the same columns.

let dir: string;
let parquetFile: string;
let jsonFile: string;
let jsonlFile: string;
let longJsonlFile: string;

const ROWS = [
  {
    prompt_ids: [151644, 872, 198],
    completion_ids: [19, 151645],
    completion_logprobs: [-0.5, -0.25],
    pass_rate: 0.75,
  },
  { prompt_ids: [151644, 872], completion_ids: [20], completion_logprobs: [-1], pass_rate: 0.25 },
  {
    prompt_ids: [151644],
    completion_ids: [21, 22, 23],
    completion_logprobs: [-0.5, -0.5, -0.5],
    pass_rate: 1,
  },
];

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-e2e-mapping-"));
  parquetFile = join(dir, "custom.parquet");
  const columns = Object.keys(ROWS[0] ?? {});
  const buffer = parquetWriteBuffer({
    columnData: columns.map((name) => ({
      name,
      data: ROWS.map((r) => r[name as keyof (typeof ROWS)[0]]),
    })),
  });
  await writeFile(parquetFile, new Uint8Array(buffer));
  jsonFile = join(dir, "table.json");
  await writeFile(
    jsonFile,
    JSON.stringify(ROWS.map(({ pass_rate, ...r }) => ({ ...r, score: pass_rate }))),
  );
  // OpenRLHF/TRL-style JSON lines: a blank line and a line that is not JSON before the records.
  jsonlFile = join(dir, "dump.jsonl");
  const lines = ROWS.map(({ pass_rate, completion_logprobs, ...r }) =>
    JSON.stringify({ ...r, logprobs: completion_logprobs, reward: pass_rate, step: 7 }),
  );
  await writeFile(jsonlFile, `\n${lines.join("\n")}\n`);
  // A first line longer than the worker's first read (256 KiB): a long trajectory's dump.
  longJsonlFile = join(dir, "long.jsonl");
  const notes = "x".repeat(600_000);
  await writeFile(
    longJsonlFile,
    `${ROWS.map((r) => JSON.stringify({ ...r, reward: r.pass_rate, notes })).join("\n")}\n`,
  );
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("an unknown Parquet table opens the mapping dialog; the applied mapping is remembered per schema", async ({
  page,
}) => {
  await openRolloutFile(page, parquetFile);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  await expect(dialog).toBeVisible();
  // Nothing is indexed until the table is mapped.
  await expectRowCount(page, 0);
  // The suggestion: prompt/completion ids and logprobs; no reward (pass_rate is no known name).
  await expect(dialog.getByLabel("prompt token ids")).toHaveValue("prompt_ids");
  await expect(dialog.getByLabel("response token ids")).toHaveValue("completion_ids");
  await expect(dialog.getByLabel("response logprobs")).toHaveValue("completion_logprobs");
  await expect(dialog.getByLabel("reward")).toHaveValue("");
  // A column mapped twice is refused.
  await dialog.getByLabel("reward").selectOption("prompt_ids");
  await expect(dialog).toContainText('column "prompt_ids" is mapped twice');
  await expect(dialog.getByRole("button", { name: "Apply mapping" })).toBeDisabled();
  await dialog.getByLabel("reward").selectOption("pass_rate");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();

  await expect(dialog).toBeHidden();
  await expectRowCount(page, 3);
  await expect(page.getByText("slime", { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");

  // The mapping can be changed: the dialog opens on it.
  await page.getByRole("button", { name: "column mapping" }).click();
  await expect(dialog.getByLabel("reward")).toHaveValue("pass_rate");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();

  // Another page load, the same table: read through the remembered mapping, no dialog.
  await openRolloutFile(page, parquetFile, { rows: 3 });
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await expect(dialog).toBeHidden();
});

test("an unknown JSON table opens the dialog with its suggestion, applied as offered", async ({
  page,
}) => {
  await openRolloutFile(page, jsonFile);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  await expect(dialog.getByLabel("reward")).toHaveValue("score");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expectRowCount(page, 3);
  // Its first trajectory: the prompt and the two response tokens.
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/files\/local-1\/0/);
});

test("Check drift runs over a whole Parquet table, read through its mapping", async ({ page }) => {
  await openRolloutFile(page, parquetFile);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  // Each test has a fresh browser context: nothing is remembered, the suggestion is applied.
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expectRowCount(page, 3);
  await page.getByRole("button", { name: "Check drift" }).click();
  const summary = page.getByTestId("file-drift-summary");
  await expect(summary).toContainText("of 3 trajectories drifted");
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toBeVisible();

  // Read through another mapping, the table is another file: both scans run again on it (their
  // results are keyed by the mapping too: src/api/drift.test.ts).
  await expect(page.getByRole("button", { name: "column mapping" })).toBeEnabled();
  await page.getByRole("button", { name: "column mapping" }).click();
  await dialog.getByLabel("reward").selectOption("pass_rate");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expectRowCount(page, 3);
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await expect(summary).toContainText("of 3 trajectories drifted");
  await expect(page.getByTestId("file-mismatch-summary")).toBeVisible();
});

test("a JSONL dump of unknown shape opens the same dialog; rows, drift and mismatch read through it", async ({
  page,
}) => {
  await openRolloutFile(page, jsonlFile);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  await expect(dialog).toBeVisible();
  // Nothing is indexed (no line of "unknown record format" errors) until the dump is mapped.
  await expectRowCount(page, 0);
  await expect(dialog.getByLabel("prompt token ids")).toHaveValue("prompt_ids");
  await expect(dialog.getByLabel("response token ids")).toHaveValue("completion_ids");
  await expect(dialog.getByLabel("reward")).toHaveValue("reward");
  // `logprobs` is no response-logprob name the suggestion knows: picked by hand.
  await expect(dialog.getByLabel("response logprobs")).toHaveValue("");
  await dialog.getByLabel("response logprobs").selectOption("logprobs");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();

  await expect(dialog).toBeHidden();
  await expectRowCount(page, 3);
  await expect(page.getByText("slime", { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await page.getByRole("button", { name: "Check drift" }).click();
  await expect(page.getByTestId("file-drift-summary")).toContainText("of 3 trajectories drifted");
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toBeVisible();

  // The first trajectory opens: read through the mapping from its line.
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/files\/local-1\/0/);

  // Another page load, the same dump: the mapping remembered for its keys, no dialog.
  await openRolloutFile(page, jsonlFile, { rows: 3 });
  await expect(dialog).toBeHidden();
});

test("a JSONL dump whose first line is longer than the first read still asks for a mapping", async ({
  page,
}) => {
  await openRolloutFile(page, longJsonlFile);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  await expect(dialog.getByLabel("prompt token ids")).toHaveValue("prompt_ids");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expectRowCount(page, 3);
});
