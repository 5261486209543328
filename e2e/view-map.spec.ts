import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { startViewCommand, type ViewServer } from "./fixtures/viewServer";

// `rollout-lens view dump.jsonl --map SPEC`, its own server process as a user runs it: a JSONL dump
// no known producer wrote opens through the mapping given on the command line, no dialog.

const MAP = "prompt=prompt_ids,response=completion_ids,logprobs=logprobs,reward=pass_rate";
const LINES = [
  { prompt_ids: [151644, 872, 198], completion_ids: [19, 151645], logprobs: [-0.5, -0.25] },
  { prompt_ids: [151644, 872], completion_ids: [20], logprobs: [-1] },
  { prompt_ids: [151644], completion_ids: [21, 22, 23], logprobs: [-0.5, -0.5, -0.5] },
].map((r, k) => JSON.stringify({ ...r, pass_rate: [0.75, 0.25, 1][k] }));

let dir: string;
let dump: string;
const views: ViewServer[] = [];

test.describe.configure({ timeout: 120_000 });

/** `rollout-lens view ...args` on a free port, its own data directory; resolves once it answers. */
async function startView(args: readonly string[]): Promise<string> {
  const view = await startViewCommand(args, dir);
  views.push(view);
  return view.origin;
}

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-view-map-e2e-"));
  dump = join(dir, "dump.jsonl");
  await writeFile(dump, `${LINES.join("\n")}\n`);
});

test.afterAll(async () => {
  for (const view of views) await view.stop();
  await rm(dir, { recursive: true, force: true });
});

test("view --map: a served JSONL dump reads through the mapping, rows and drift, no dialog", async ({
  page,
}) => {
  const origin = await startView([dump, "--map", MAP]);
  await page.goto(`${origin}/files/f1`);
  await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");
  await expect(page.getByRole("dialog", { name: "column mapping" })).toBeHidden();
  await expect(page.getByText("slime", { exact: true }).first()).toBeVisible();
  // pass_rate is no reward name a suggestion knows: only --map makes it the reward.
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await page.getByRole("button", { name: "Check drift" }).click();
  await expect(page.getByTestId("file-drift-summary")).toContainText("of 3 trajectories drifted");
});

test("a served JSONL dump without --map: the dialog, then another mapping; the tail reads through the last one", async ({
  page,
}) => {
  const tailed = join(dir, "tailed.jsonl");
  await writeFile(tailed, `${LINES.join("\n")}\n`);
  const origin = await startView([tailed]);
  await page.goto(`${origin}/files/f1`);
  const dialog = page.getByRole("dialog", { name: "column mapping" });
  await expect(dialog.getByLabel("response logprobs")).toHaveValue("");
  await dialog.getByLabel("response logprobs").selectOption("logprobs");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");
  await expect(page.getByTestId("rollout-table")).not.toContainText("0.75");

  // Another mapping: the file is read again through it, once (the first reading's tail stops).
  await expect(page.getByRole("button", { name: "column mapping" })).toBeEnabled();
  await page.getByRole("button", { name: "column mapping" }).click();
  await dialog.getByLabel("reward").selectOption("pass_rate");
  await dialog.getByRole("button", { name: "Apply mapping" }).click();
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");

  // A line appended while the file is open: one more row, read through the new mapping.
  const line = { prompt_ids: [151644], completion_ids: [24], logprobs: [-2], pass_rate: 0.125 };
  await appendFile(tailed, `${JSON.stringify(line)}\n`);
  await expect(page.getByTestId("row-count")).toHaveText("4 / 4 trajectories");
  await expect(page.getByTestId("rollout-table")).toContainText("0.125");
  // Past two tail polls: still one row per line (no second reader adding rows).
  await page.waitForTimeout(2_500);
  await expect(page.getByTestId("row-count")).toHaveText("4 / 4 trajectories");
});
