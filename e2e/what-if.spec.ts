import { expect, type Page, test } from "@playwright/test";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../src/core/formats/rolloutLens";
import { replayCollector } from "../src/core/mismatch/corrections/replayRows";
import { withLane } from "../src/core/trajectory/lanes";
import { type ThresholdEdits, whatIfChoices } from "../src/features/mismatch/useWhatIf";
import { whatIfCells } from "../src/features/mismatch/whatIf";
import { modelSegment, promptSegment, trajectory } from "../src/test/trajectoryBuilders";
import { atroposMismatchFile } from "./fixtures/mismatchFiles";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

// The what-if table (docs/mismatch.md "Every correction replayed"): every correction replayed over
// an atropos file side by side, its numbers those of `rollout-lens mismatch --json` (the same
// collector; server/commands/whatIfParity.test.ts checks the CLI), and, in a dropped row, the
// token details saying who masked the token and why.

test.use({ viewport: { width: 1400, height: 900 } });

/** The table's cells as `mismatch --correction <all> --json` computes them, from the core. */
function expectedCells(text: string, edits: ThresholdEdits = {}) {
  const collector = replayCollector(undefined);
  let row = 0;
  text.split("\n").forEach((line, i) => {
    const result = readRolloutLine(line, i + 1);
    if (result.kind !== "trajectories") return;
    for (const t of result.trajectories) collector.add(t, row++);
  });
  return collector.finish(whatIfChoices(edits)).replays.map((r) => ({
    cells: whatIfCells(r.summary),
    dropped: r.summary.rowsDropped,
  }));
}

/**
 * Selects token `t` by a click and moves the pointer off the tokens, so the details panel shows it
 * even if the rows move afterwards (a hover alone follows whatever a late layout puts under it).
 */
async function pinToken(page: Page, t: number) {
  await page.locator(`[data-t="${t}"]`).first().click();
  await page.mouse.move(0, 0);
  await expect(page.getByTestId("detail-position")).toHaveText(`#${t}`);
}

test("the what-if table replays every correction over a file, and a token says who masked it", async ({
  page,
}) => {
  const file = atroposMismatchFile();
  const expected = expectedCells(file.text);
  await openRolloutFile(page, textFile("atropos-groups.jsonl", file.text), { rows: 24 });
  await page.getByRole("button", { name: "Compare corrections" }).click();
  const table = page.getByTestId("what-if-table");
  await expect(table).toBeVisible();
  await expect(table.locator("tbody tr")).toHaveCount(expected.length);
  for (const { cells } of expected) {
    const tr = table.locator(`tr[data-correction="${cells.name}"]`);
    await expect(tr.locator('[data-cell="masked"]')).toHaveText(cells.masked);
    await expect(tr.locator('[data-cell="clipped"]')).toHaveText(cells.clipped);
    await expect(tr.locator('[data-cell="unchecked"]')).toHaveText(cells.unchecked);
    await expect(tr.locator('[data-cell="ess"]')).toHaveText(cells.ess);
    await expect(tr.locator('[data-cell="dropped"]')).toContainText(cells.dropped);
  }
  // Not a table of zeros: TRM K3 drops the row with the planted token (|log r| = 3.1).
  const trm = expected.find((e) => e.cells.name === "trm-k3");
  expect(trm?.dropped).toContain(file.planted.row);

  // What if IcePop's β were 1.05? The worker replays it; the row follows the core's numbers.
  await page.getByLabel("icepop beta").fill("1.05");
  const edited = expectedCells(file.text, { icepop: { beta: 1.05 } }).find(
    (e) => e.cells.name === "icepop",
  );
  const before = expected.find((e) => e.cells.name === "icepop");
  expect(edited?.cells.masked).not.toBe(before?.cells.masked);
  const icepopRow = table.locator('tr[data-correction="icepop"]');
  await expect(icepopRow.locator('[data-cell="masked"]')).toHaveText(edited?.cells.masked ?? "");
  await expect(icepopRow.locator('[data-cell="ess"]')).toHaveText(edited?.cells.ess ?? "");

  // The dropped row opens from its link; in mismatch mode the planted token names its deciders.
  await table
    .locator('tr[data-correction="trm-k3"]')
    .getByRole("link", { name: `#${file.planted.row}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/files/local-1/${file.planted.row}$`));
  await page.getByRole("checkbox", { name: "mismatch" }).check();
  await pinToken(page, file.planted.token);
  const box = page.getByTestId("token-corrections");
  const icepop = box.locator('li[data-correction="icepop"]');
  await expect(icepop).toHaveAttribute("data-verdict", "masked");
  await expect(icepop).toContainText(
    `r = ${Number(Math.exp(file.planted.delta).toPrecision(4))} is outside [α, β] = [0.5, 5]`,
  );
  const veto = box.locator('li[data-correction="trm-k3"]');
  await expect(veto).toHaveAttribute("data-verdict", "masked");
  await expect(veto).toContainText("the token veto fires");
  // atropos records no advantage, and one row alone has no group: OPSM cannot decide here.
  await expect(box.locator('[data-correction="opsm"]')).toHaveAttribute(
    "data-verdict",
    "unchecked",
  );
});

test("a long trajectory replays the corrections for the token details when asked", async ({
  page,
}) => {
  const n = 40_000;
  const ids = Array.from({ length: n }, (_, k) => 1000 + (k % 3000));
  const logprobs = ids.map((_, k) => -0.05 - 0.001 * (k % 50));
  const t = trajectory([promptSegment([1, 2, 3]), modelSegment(ids, 1, { logprobs })], {
    id: "long",
  });
  const trainer = [null, null, null, ...logprobs.map((v, k) => (k === 4 ? v - 3 : v - 0.01))];
  const text = `${stringifyJsonLine(writeRolloutLens(withLane(t, "trainer", trainer)))}\n`;
  await openRolloutFile(page, textFile("long.jsonl", text), { rows: 1 });
  await openRow(page);
  await page.getByRole("checkbox", { name: "mismatch" }).check();
  await pinToken(page, 7);
  await expect(page.getByTestId("token-corrections")).toHaveCount(0);
  await page.getByTestId("ask-replays").click();
  // Token 7 (model token 4) moved by 3 nats: r = e^−3 ≈ 0.0498, IcePop masks it.
  const icepop = page.getByTestId("token-corrections").locator('li[data-correction="icepop"]');
  await expect(icepop).toHaveAttribute("data-verdict", "masked");
  await expect(page.getByTestId("ask-replays")).toHaveCount(0);
});
