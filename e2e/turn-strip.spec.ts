import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { openRolloutFile, openRow } from "./fixtures/openRolloutFile";

// Real Qwen3 ids: the model thinks in turn 1, a second user message follows, and re-rendering the
// history for turn 2 drops turn 1's <think> block (src/test/fixtures/README.md).
const STRIPPED = fileURLToPath(
  new URL("../src/test/fixtures/qwen3-stripped-thinking.jsonl", import.meta.url),
);

test("a Qwen3 record with stripped thinking: the turn strip shows the FORK turn and explains it", async ({
  page,
}) => {
  await openRolloutFile(page, STRIPPED);
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-1\/0$/);

  const strip = page.getByTestId("turn-strip");
  const cells = strip.getByTestId("turn-cell");
  await expect(cells).toHaveText(["1", "2"]);
  await expect(cells.nth(0)).toHaveAttribute("data-class", "CLEAN");
  await expect(cells.nth(1)).toHaveAttribute("data-class", "FORK");
  await expect(strip.getByTestId("turn-summary")).toHaveText("1 of 2 turns break the prefix");

  // The FORK turn is explained at once: its rule, the family sentence, the dropped tokens.
  const explain = strip.getByTestId("turn-explain");
  await expect(explain).toContainText("Turn 2: FORK");
  await expect(explain.getByTestId("turn-rule")).toHaveText("qwen3.strip-think");
  await expect(explain).toContainText(
    "Qwen3's template drops <think>…</think> from assistant turns",
  );
  await expect(explain.getByTestId("turn-removed")).toContainText("<think>");
  await expect(explain.getByTestId("turn-removed")).toContainText("</think>");

  // The same tokens are marked where they sit in the token view: 15..24, turn 1's thinking.
  // (A token whose piece holds newlines is drawn as one span per line: count tokens, not spans.)
  const removed = page.locator('[data-t][class*="turnRemoved"]');
  const markedTokens = () =>
    removed.evaluateAll((spans) => [
      ...new Set(spans.map((s) => Number(s.getAttribute("data-t")))),
    ]);
  await expect.poll(markedTokens).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
  await expect(page.locator('[data-t="15"]')).toHaveText("<think>");

  // "token 15" selects the first divergence; turn 1 is CLEAN and marks nothing.
  await explain.getByRole("button", { name: "token 15" }).click();
  await expect(page.locator('[data-t="15"]')).toHaveAttribute("aria-selected", "true");
  await cells.nth(0).click();
  await expect(strip.getByTestId("turn-explain")).toContainText("Turn 1: CLEAN");
  await expect(removed).toHaveCount(0);
});
