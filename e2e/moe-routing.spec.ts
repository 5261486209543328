import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import { correction } from "../src/core/mismatch/mismatch";
import { routingView } from "../src/core/mismatch/routing";
import { trajectoryMismatch } from "../src/core/mismatch/trajectoryMismatch";
import { tokenCount } from "../src/core/trajectory/flatten";
import { sampledLane, withLane } from "../src/core/trajectory/lanes";
import type { Trajectory } from "../src/core/trajectory/types";
import { fixturePath } from "../src/test/fixtureFiles";

// MoE routing in the mismatch panel (docs/mismatch.md "MoE routing"): a rollout-lens/v1 row with
// slime's rollout_routed_experts and a trainer-side train_routed_experts that differs on every
// fifth token's second layer, where the trainer lane also moves most; then the same row with
// the rollout side only.

const line = readFileSync(fixturePath("reference-rollout-lens.jsonl"), "utf8").split("\n")[0] ?? "";
const read = readRolloutLine(line, 1);
if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error("fixture unreadable");
const base = read.trajectories[0];
const n = tokenCount(base.segments);
const sampled = sampledLane(base);
const differs = (k: number) => k % 5 === 0;
const trainer = sampled.map((v, k) => (v === null ? null : v - (differs(k) ? 0.4 : 0.02)));
const rollout = Array.from({ length: n - 1 }, () => [
  [1, 2],
  [3, 4],
]);
const train = rollout.map((row, k) => (differs(k) ? [row[0], [3, 7]] : row));

function fileOf(metadata: Record<string, unknown>): { text: string; t: Trajectory } {
  const t = withLane({ ...base, metadata: { ...base.metadata, ...metadata } }, "trainer", trainer);
  return { text: `${stringifyJsonLine(writeRolloutLens(t))}\n`, t };
}

async function openRow(page: import("@playwright/test").Page, text: string) {
  await page.goto("/files");
  await page.getByLabel("rollout file").setInputFiles({
    name: "routed.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(text),
  });
  await expect(page.getByTestId("row-count")).toHaveText("1 / 1 trajectories");
  await page.locator("[data-row]").first().dblclick();
  await page.getByRole("checkbox", { name: "mismatch" }).check();
}

test("two routing arrays: token × layer agreement, and |δ| split by it", async ({ page }) => {
  const { text, t } = fileOf({ rollout_routed_experts: rollout, train_routed_experts: train });
  const reread = readRolloutLine(text.trim(), 1);
  if (reread.kind !== "trajectories" || !reread.trajectories[0]) throw new Error("unreadable");
  const mismatch = trajectoryMismatch(
    reread.trajectories[0],
    ["trainer", "sampled"],
    correction("token-trunc"),
  );
  if (!mismatch.ok) throw new Error(mismatch.message);
  const view = routingView(reread.trajectories[0], mismatch.result.delta);
  if (view.kind !== "two") throw new Error(`routing not read back: ${view.kind} ${t.id}`);
  const c = view.comparison;
  await openRow(page, text);
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
  await box.screenshot({ path: "docs/screenshots/moe-routing.png" });
  // Per token × layer: a token whose second layer differs, and one whose layers all agree.
  const trained = sampled.map((v, k) => (v === null ? -1 : k)).filter((k) => k >= 0);
  const off = trained.find((k) => differs(k) && k < n - 1) ?? -1;
  await page.locator(`[data-t="${off}"]`).first().hover();
  await expect(page.getByTestId("detail-routing")).toHaveText("layer 1: 3,4 vs 3,7");
  const on = trained.find((k) => !differs(k) && k < n - 1) ?? -1;
  await page.locator(`[data-t="${on}"]`).first().hover();
  await expect(page.getByTestId("detail-routing")).toContainText("every layer agrees");
});

test("one routing array: shown, with what is missing", async ({ page }) => {
  await openRow(page, fileOf({ rollout_routed_experts: rollout }).text);
  const box = page.getByTestId("mismatch-routing");
  await expect(box).toContainText(`rollout_routed_experts (2 layers, top-2, ${n - 1} tokens)`);
  await expect(box).toContainText("agreement needs a second one");
});
