import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { fixturePath } from "../src/test/fixtureFiles";
import { finishedEpisode } from "./fixtures/finishedEpisode";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

// A real atropos group written by a Llama-3 model: no `tokenizer` field, no sampled logprobs.
// Rescored against the embedded simulator (which serves each request in its ids' family), its
// lane is shown on its own: heatmap, chart and Next low-confidence read it, and "Save as…"
// downloads the row with the lane as a new file.
const line = readFileSync(fixturePath("atropos-rubiks-trimmed.jsonl"), "utf8").split("\n")[0] ?? "";

test("a real Llama-3 row without logprobs: Rescore shows the lane on its own, Save as downloads it", async ({
  page,
}) => {
  await openRolloutFile(page, textFile("rubiks.jsonl", `${line}\n`), { rows: 2 });
  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-1\/0$/);
  await expect(page.getByTestId("logprob-chart")).toContainText("no logprobs recorded");

  await page.getByRole("button", { name: "Rescore", exact: true }).click();
  await expect(page.getByTestId("rescore-status")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("solo-lane")).toContainText("rescored");
  await expect(page.getByTestId("logprob-chart")).not.toContainText("no logprobs recorded");

  await page.getByLabel("mismatch", { exact: true }).check();
  await expect(page.getByTestId("mismatch-message")).toContainText(
    "records no sampled logprobs to compare with: the rescored lane is shown on its own",
  );
  await expect(page.getByTestId("mismatch-stats")).toHaveCount(0);

  // The threshold set high enough that some rescored token is below it.
  await page.getByLabel("low-confidence threshold").fill("0.99");
  await page.getByRole("button", { name: "Next low-confidence" }).click();
  await expect(page.getByTestId("detail-position")).toHaveText(/^#(19[3-9]\d|20\d\d)$/);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Save as…" }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe("L1.0.rescored.jsonl");
  const text = readFileSync((await saved.path()) ?? "", "utf8");
  const read = readRolloutLine(text.trim(), 1);
  if (read.kind !== "trajectories") throw new Error("saved file unreadable");
  const lane = read.trajectories[0]?.logprobLanes?.rescored ?? [];
  expect(lane.filter((v) => v !== null).length).toBeGreaterThan(1000);
});

test("an episode's rescored lane is still there after a reload", async ({ page, request }) => {
  const id = await finishedEpisode(request, { prompt: "What is 12*12?", policy: "calculator" });
  await page.goto(`/episodes/${id}`);
  await page.getByRole("button", { name: "Rescore", exact: true }).click();
  await expect(page.getByTestId("rescore-status")).toBeVisible({ timeout: 60_000 });
  await page.reload();
  await page.getByLabel("mismatch", { exact: true }).check();
  // Compared without pressing Rescore again: the stored episode carries the lane.
  await expect(page.getByTestId("mismatch-compared")).not.toHaveText("0");
  await expect(page.getByLabel("lane a")).toHaveValue("rescored");
});
