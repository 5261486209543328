import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { asyncBufferFromFile } from "hyparquet";
import { rolloutDumpSource } from "../src/core/files/torchRecords";
import { readRolloutValue } from "../src/core/formats/readRolloutLine";
import { tokenMismatch } from "../src/core/mismatch/mismatch";
import { sampledLane } from "../src/core/trajectory/lanes";
import type { Trajectory } from "../src/core/trajectory/types";
import { fixturePath } from "../src/test/fixtureFiles";
import { startView, type ViewServer } from "./fixtures/viewServer";

// `rollout-lens view D` on a miles --dump-details folder written by real torch.save
// (scripts/fixtures/torch_fixtures.py): rollout_data/3.pt and train_data/3_0.pt. The rollout's
// samples open with the train dump's trainer and reference lanes, advantages and entropy joined,
// with no flag, as `rollout-lens mismatch D` reads them.

const details = fixturePath("torch/dump-details");
let view: ViewServer;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1400, height: 1000 } });

test.beforeAll(async () => {
  view = await startView(details, "dump-details");
});
test.afterAll(async () => {
  await view?.stop();
});

/** Sample 0 as the CLI reads it (the same core join), the reference the page must show. */
async function sampleZero(): Promise<{ t: Trajectory; advantages: number[] }> {
  const file = (name: string) => asyncBufferFromFile(join(details, name));
  const source = await rolloutDumpSource([
    { name: "rollout_data/3.pt", file: await file("rollout_data/3.pt") },
    { name: "train_data/3_0.pt", file: await file("train_data/3_0.pt") },
  ]);
  const [record] = (await source.read(0, 1)) as Record<string, unknown>[];
  const read = readRolloutValue(record as Record<string, unknown>, 1);
  if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error("sample 0 unreadable");
  return { t: read.trajectories[0], advantages: record?.advantages as number[] };
}

test("view a --dump-details folder: the train dump's trainer lane in the mismatch view, no flag", async ({
  page,
}) => {
  const { t, advantages } = await sampleZero();
  const sampled = sampledLane(t);
  const trainer = t.logprobLanes?.trainer ?? [];
  const token = trainer.findIndex((v, k) => v !== null && sampled[k] !== null && k > 45);
  expect(token).toBeGreaterThan(0);
  const m = tokenMismatch(trainer[token], sampled[token]);
  if (!m) throw new Error("no mismatch at the chosen token");

  await page.goto(`${view.origin}/files`);
  const run = page.getByRole("region", { name: "run dump-details" });
  await run.getByRole("link", { name: /^step 3/ }).click();
  await expect(page.getByTestId("row-count")).toHaveText("12 / 12 trajectories");
  // The file-wide scan (the scan pool's workers open the records too) compares the trainer lane,
  // named here: the dump's own teacher lane would be compared by default without the join.
  await page.getByLabel("mismatch lane a").fill("trainer");
  await page.getByLabel("mismatch lane b").fill("sampled");
  await page.getByRole("button", { name: "Check mismatch" }).click();
  await expect(page.getByTestId("file-mismatch-summary")).toContainText(
    "trained tokens of 12 trajectories compared",
  );
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("model output · mask 1 (trained)").first()).toBeVisible();

  const toggle = page.getByRole("checkbox", { name: "mismatch" });
  if (!(await toggle.isChecked())) await toggle.check();
  await expect(page.getByLabel("lane a")).toHaveValue("trainer");
  await expect(page.getByLabel("lane b")).toHaveValue("sampled");
  await expect(page.getByTestId("mismatch-panel")).toBeVisible();

  await page.locator(`[data-t="${token}"]`).first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  const a = (await page.getByTestId("detail-lane-a").textContent()) ?? "";
  expect(Number(a.split(" ")[0])).toBeCloseTo(trainer[token] ?? 0, 4);
  expect(Number(await page.getByTestId("detail-ratio").textContent())).toBeCloseTo(m.r, 4);
  // Advantages are per response token: the response starts after the prompt.
  const responseStart = sampled.length - advantages.length;
  expect(Number(await page.getByTestId("detail-advantage").textContent())).toBeCloseTo(
    advantages[token - responseStart] ?? Number.NaN,
    3,
  );
  await expect(page.getByTestId("detail-entropy")).toBeVisible();
});
