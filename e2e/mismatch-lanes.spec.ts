import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import { tokenMismatch } from "../src/core/mismatch/mismatch";
import { sampledLane, withLane } from "../src/core/trajectory/lanes";
import { fixturePath } from "../src/test/fixtureFiles";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

// A rollout-lens/v1 line with a `trainer` lane next to the sampled logprobs.
const line = readFileSync(fixturePath("reference-rollout-lens.jsonl"), "utf8").split("\n")[0] ?? "";
const read = readRolloutLine(line, 1);
if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error("fixture unreadable");
const base = read.trajectories[0];
const sampled = sampledLane(base);
const trainer = sampled.map((v, k) => (v === null ? null : v - 0.35 + 0.01 * k));
const file = stringifyJsonLine(writeRolloutLens(withLane(base, "trainer", trainer)));
const token = sampled.findIndex((v, k) => v !== null && k > 14);

test("the details card shows both lanes' logprobs, r and k3 of a token", async ({ page }) => {
  await openRolloutFile(page, textFile("lanes.jsonl", `${file}\n`), { rows: 1 });
  // A local file lives in this page only: open its row by double click, not by a new load.
  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-1\/0$/);
  await page.locator(`[data-t="${token}"]`).first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  const m = tokenMismatch(trainer[token], sampled[token]);
  if (!m) throw new Error("no mismatch at the chosen token");
  await expect(page.getByTestId("token-details")).toContainText("trainer");
  expect(Number(await page.getByTestId("detail-ratio").textContent())).toBeCloseTo(m.r, 4);
  expect(Number(await page.getByTestId("detail-k3").textContent())).toBeCloseTo(m.k3, 5);
  const a = (await page.getByTestId("detail-lane-a").textContent()) ?? "";
  expect(Number(a.split(" ")[0])).toBeCloseTo(trainer[token] ?? 0, 4);
  const b = (await page.getByTestId("detail-lane-b").textContent()) ?? "";
  expect(Number(b.split(" ")[0])).toBeCloseTo(sampled[token] ?? 0, 4);

  // The first token has no logprob in either lane: no ratio is made up.
  expect(sampled[0]).toBeNull();
  await page.locator('[data-t="0"]').first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText("#0");
  await expect(page.getByTestId("detail-lane-a")).toHaveText("none");
  await expect(page.getByTestId("detail-ratio")).toHaveText("—");
});
