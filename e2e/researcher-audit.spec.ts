import { readFileSync } from "node:fs";
import { expect, type Locator, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { nemoRlMismatchFile } from "./fixtures/mismatchFiles";
import { openRolloutFile, textFile } from "./fixtures/openRolloutFile";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";
import { startView } from "./fixtures/viewServer";

/*
 * What a researcher sees going wrong on a laptop screen with files other tools wrote: each test
 * is a finding of the UI audit, and fails on the code before its fix.
 */

test.use({ viewport: { width: 1280, height: 800 } });

/** The element shows all of its content: it is not squeezed below its own height. */
async function expectNotSqueezed(panel: Locator) {
  await expect(panel).toBeVisible();
  const { height, content } = await panel.evaluate((el) => ({
    height: el.getBoundingClientRect().height,
    content: el.scrollHeight,
  }));
  expect(height).toBeGreaterThanOrEqual(content - 1);
}

test("at 1280×800 the bad lines panel of a file shows its lines, not a 2 px strip", async ({
  page,
}) => {
  const lines = [
    generateLine(0, { tokens: 300 }),
    '{"tokens": [1, 2',
    generateLine(1, { tokens: 300 }),
  ];
  await openRolloutFile(page, textFile("broken-middle.jsonl", `${lines.join("\n")}\n`), {
    rows: 2,
  });
  // Taller than the screen, the page scrolls, and opens at its top: the table takes the focus
  // (for j/k) without scrolling the page down to itself.
  const scroll = await page.getByText("broken-middle.jsonl", { exact: true }).evaluate((el) => {
    const pageEl = el.closest("main > div");
    return pageEl && { top: pageEl.scrollTop, over: pageEl.scrollHeight - pageEl.clientHeight };
  });
  expect(scroll?.over).toBeGreaterThan(0);
  expect(scroll?.top).toBe(0);
  const panel = page.getByLabel("bad lines");
  await expectNotSqueezed(panel);
  await expect(panel).toContainText("1 bad line skipped");
  await expect(panel.getByText("line 2")).toBeVisible();
});

test("a file row's URL follows the selected token: a reload lands on the same row and token", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/0?sort=reward`);
  const token = page.locator('[data-t="40"]').first();
  await token.click();
  await expect(token).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(new RegExp(`/files/${id}/0\\?sort=reward&token=40$`));
  // The way back to the list keeps its sort and drops the row's token.
  const back = page
    .getByRole("navigation", { name: "trajectory navigation" })
    .getByRole("link")
    .first();
  await expect(back).toHaveAttribute("href", `/files/${id}?sort=reward`);
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/token=41$/);
  await page.reload();
  await expect(page.locator('[data-t="41"]').first()).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("detail-position")).toHaveText("#41");
});

test("at 1280×800 a run's step page opens at its top: the run's step navigation is in view", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const view = await startView(fixturePath("prime-rl-run"), "prime-rl-run");
  try {
    await page.goto(`${view.origin}/files`);
    await page.getByRole("link", { name: "step 0, train, all" }).click();
    await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");
    // The run's charts are in, so the page is taller than the screen.
    await expect(page.getByText("2 of 2 steps").first()).toBeVisible();
    await expect(page.getByRole("link", { name: "next step (n) ›" })).toBeInViewport();
    await expect(page.getByRole("link", { name: "run prime-rl-run" })).toBeInViewport();
    // Steps are whole numbers, and a share of 0 on every step is not drawn on a 0–400 % axis.
    const ticks = (chart: string) =>
      page
        .getByRole("figure", { name: chart })
        .locator(".recharts-cartesian-axis-tick-value")
        .allTextContents();
    const driftTicks = await ticks("per-step drift rate");
    expect(driftTicks).toContain("1");
    for (const tick of driftTicks) {
      if (tick.endsWith("%")) expect(Number.parseFloat(tick)).toBeLessThanOrEqual(100);
      else expect(Number.isInteger(Number(tick))).toBe(true);
    }
  } finally {
    await view.stop();
  }
});

test("Check mismatch on trainer lanes: the decomposition chart says why it is empty, no bare axis", async ({
  page,
}) => {
  await openRolloutFile(page, textFile("nemo.jsonl", nemoRlMismatchFile().text), { rows: 24 });
  await page.getByRole("button", { name: "Check mismatch" }).click();
  const chart = page.getByTestId("mismatch-decomposition");
  await expect(chart).toContainText("nothing to draw: no token has its terms known");
  await expect(chart).toContainText("24 rows unchecked");
  await expect(chart).not.toContainText("1.0e-9");
});

test("the decomposition legend's labels sit apart", async ({ page }) => {
  // The reference record (T = 1 recorded) with a rescored lane: every term is known.
  const record = JSON.parse(readFileSync(fixturePath("reference-rollout-lens.jsonl"), "utf8"));
  const logprobs: (number | null)[] = record.logprobs;
  record.logprob_lanes = {
    rescored: logprobs.map((lp, k) => (lp === null ? null : lp - 0.05 * (k % 7))),
  };
  await openRolloutFile(page, textFile("rescored.jsonl", `${JSON.stringify(record)}\n`), {
    rows: 1,
  });
  await page.getByRole("button", { name: "Check mismatch" }).click();
  const chart = page.getByTestId("mismatch-decomposition");
  const labels = chart.locator("text").filter({ hasText: "■" });
  await expect(labels).toHaveCount(3);
  const boxes = await labels.evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right };
    }),
  );
  for (let k = 1; k < boxes.length; k++) {
    expect(boxes[k]?.left).toBeGreaterThanOrEqual(boxes[k - 1]?.right ?? Number.NaN);
  }
});

test("a FORK's removed tokens wrap inside the turn strip, none runs off the right edge", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/0`);
  const removed = page.getByTestId("turn-removed");
  await expect(removed).toBeVisible();
  const { right, overflow, last } = await removed.evaluate((el) => ({
    right: el.getBoundingClientRect().right,
    overflow: el.scrollWidth - el.clientWidth,
    last: el.lastElementChild?.getBoundingClientRect().right ?? 0,
  }));
  expect(overflow).toBeLessThanOrEqual(0);
  expect(right).toBeLessThanOrEqual(1280);
  expect(last).toBeLessThanOrEqual(right);
});

test("the playground's family note keeps the template's tags as written, not upper-cased", async ({
  page,
}) => {
  await page.goto("/playground");
  const note = page.getByTestId("picked-family");
  await expect(note).toContainText("<tool_response>", { useInnerText: true });
  await expect(note).not.toContainText("TOOL CALLS", { useInnerText: true });
});

test("a group's forest says what its colours mean and what 'no finding' covers", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/groups/L1`);
  await expect(page.getByRole("img", { name: /^forest of/ })).toBeVisible();
  const legend = page.getByTestId("forest-legend");
  await expect(legend).toContainText("tokens members share");
  await expect(legend).toContainText("reward");
  // Rewards are rounded as everywhere else, never 16 digits long.
  await expect(legend).not.toContainText(/\d\.\d{6}/);
  await expect(page.getByLabel("findings")).not.toHaveText("nothing found");
});

test("a torch.save file with no rollout samples reads as not read, not as still indexing", async ({
  page,
}) => {
  await openRolloutFile(page, fixturePath("torch/values.pt"));
  const status = page.getByRole("status").filter({ hasText: "values.pt" });
  await expect(status).toContainText("a torch.save file with no rollout samples");
  await expect(status).toContainText("not read");
  await expect(status).not.toContainText("B/s");
  await expect(status.getByRole("button", { name: /tail/ })).toHaveCount(0);
});

test("a text-only row says it has no token ids, in the table and on its page, not 0 tokens", async ({
  page,
}) => {
  await openRolloutFile(page, fixturePath("reference-verl.jsonl"), { rows: 1 });
  // "Drift and mismatch checks are off", and every button of them is.
  await expect(page.getByTestId("ids-absent")).toBeVisible();
  await expect(page.getByRole("button", { name: "Check drift" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Check mismatch" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Compare corrections" })).toBeDisabled();
  const row = page.locator('[data-row="0"]');
  await expect(row).toContainText("—");
  await expect(row).not.toContainText(/\b0\b/);
  await row.dblclick();
  await expect(page.getByRole("navigation", { name: "trajectory navigation" })).toContainText(
    "no token ids",
  );
});
