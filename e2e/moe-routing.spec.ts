import { expect, test } from "@playwright/test";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { correction } from "../src/core/mismatch/mismatch";
import { routingView } from "../src/core/mismatch/routing";
import { trajectoryMismatch } from "../src/core/mismatch/trajectoryMismatch";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";
import {
  rolloutRouting,
  routedFile,
  routedSampled,
  routedTokens,
  routingDiffers,
  trainRouting,
} from "./fixtures/routedRows";

// MoE routing in the mismatch panel (docs/mismatch.md "MoE routing"), on the row of
// fixtures/routedRows.ts with both routing arrays, then with the rollout side only.

async function openRoutedRow(page: import("@playwright/test").Page, text: string) {
  await openRolloutFile(page, textFile("routed.jsonl", text), { rows: 1 });
  await openRow(page);
  await page.getByRole("checkbox", { name: "mismatch" }).check();
}

test("two routing arrays: token × layer agreement, and |δ| split by it", async ({ page }) => {
  const text = routedFile({
    rollout_routed_experts: rolloutRouting,
    train_routed_experts: trainRouting,
  });
  const reread = readRolloutLine(text.trim(), 1);
  if (reread.kind !== "trajectories" || !reread.trajectories[0]) throw new Error("unreadable");
  const mismatch = trajectoryMismatch(
    reread.trajectories[0],
    ["trainer", "sampled"],
    correction("token-trunc"),
  );
  if (!mismatch.ok) throw new Error(mismatch.message);
  const view = routingView(reread.trajectories[0], mismatch.result.delta);
  if (view.kind !== "two") throw new Error(`routing not read back: ${view.kind}`);
  const c = view.comparison;
  await openRoutedRow(page, text);
  const box = page.getByTestId("mismatch-routing");
  await expect(box).toContainText("rollout_routed_experts vs train_routed_experts");
  await expect(page.getByTestId("routing-agree")).toHaveText(
    `${((100 * c.agreeing) / c.cells).toFixed(1)} %`,
  );
  await expect(page.getByTestId("routing-delta-differ")).toHaveText(
    c.someDiffer.meanAbsDelta.toFixed(4),
  );
  await expect(page.getByTestId("routing-delta-agree")).toHaveText(
    c.allAgree.meanAbsDelta.toFixed(4),
  );
  // Where routing differs the trainer moved 0.4, elsewhere 0.02.
  expect(c.someDiffer.meanAbsDelta).toBeCloseTo(0.4, 6);
  expect(c.allAgree.meanAbsDelta).toBeCloseTo(0.02, 6);
  // Per token × layer: a token whose second layer differs, and one whose layers all agree.
  const trained = routedSampled.map((v, k) => (v === null ? -1 : k)).filter((k) => k >= 0);
  const off = trained.find((k) => routingDiffers(k) && k < routedTokens - 1) ?? -1;
  await page.locator(`[data-t="${off}"]`).first().hover();
  await expect(page.getByTestId("detail-routing")).toHaveText("layer 1: 3,4 vs 3,7");
  const on = trained.find((k) => !routingDiffers(k) && k < routedTokens - 1) ?? -1;
  await page.locator(`[data-t="${on}"]`).first().hover();
  await expect(page.getByTestId("detail-routing")).toContainText("every layer agrees");
});

test("one routing array: shown, with what is missing", async ({ page }) => {
  await openRoutedRow(page, routedFile({ rollout_routed_experts: rolloutRouting }));
  const box = page.getByTestId("mismatch-routing");
  await expect(box).toContainText(
    `rollout_routed_experts (2 layers, top-2, ${routedTokens - 1} tokens)`,
  );
  await expect(box).toContainText("agreement needs a second one");
});
