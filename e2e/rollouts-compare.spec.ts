import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { expectRowCount, openRolloutFile } from "./fixtures/openRolloutFile";

// Small file: 24 trajectories in GRPO groups of 4, each with 2 model turns, 3k tokens.
let dir: string;
let file: string;

test.use({ viewport: { width: 1500, height: 1000 } });
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-compare-"));
  file = join(dir, "groups.jsonl");
  const lines = Array.from({ length: 24 }, (_, k) => generateLine(k, { tokens: 3000 }));
  await writeFile(file, `${lines.join("\n")}\n`);
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("chart bars filter the table; best vs worst of a group opens side by side", async ({
  page,
}) => {
  await openRolloutFile(page, file, { rows: 24 });

  const turns = page.getByLabel("turns per episode");
  await turns.locator(".recharts-bar-rectangle").first().click();
  await expect(page).toHaveURL(/turnsMin=2&turnsMax=2/);
  await expect(page.getByRole("button", { name: "turns 2–2 ✕" })).toBeVisible();
  await expectRowCount(page, 24);

  const byPosition = page.getByLabel("mean logprob by position");
  // Buckets 0–1k and 1k–2k and 2k–4k: the last one keeps rows reaching token 2049.
  await expect(byPosition.locator(".recharts-bar-rectangle")).toHaveCount(3);
  await byPosition.locator(".recharts-bar-rectangle").last().click();
  await expect(page).toHaveURL(/lengthMin=2049/);

  await page.getByLabel("groups").locator("summary").click();
  // A group whose rewards differ: its best is strictly better than its worst.
  const compare = page.getByRole("button", { name: "compare" });
  await page
    .getByLabel("groups")
    .getByRole("row")
    .filter({ hasNotText: "zero variance" })
    .filter({ has: compare })
    .first()
    .getByRole("button", { name: "compare" })
    .click();
  await expect(page).toHaveURL(/\/files\/local-1\/compare\/\d+\/\d+$/);
  const rewards = page.getByTestId("compare-reward");
  await expect(rewards).toHaveCount(2);
  const [best, worst] = (await rewards.allTextContents()).map(Number);
  expect(best).toBeGreaterThan(worst ?? Number.POSITIVE_INFINITY);
  // Two full trajectory views, each with its own segments.
  const sides = page.locator("section[aria-label^='trajectory']");
  await expect(sides).toHaveCount(2);
  for (const side of await sides.all()) {
    await expect(side.locator("[data-segment]").first()).toBeVisible();
  }
});
