import { expect, type Page, test } from "@playwright/test";
import { finishedEpisode } from "./fixtures/finishedEpisode";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";

/**
 * The token is selected and in view now and still after every late re-layout (the tokenizer's
 * pieces, the turn strip): 5 s later it has not moved out of the viewport.
 */
async function expectTokenStays(page: Page, token: number) {
  const box = page.locator(`[data-t="${token}"]`).first();
  await expect(box).toBeInViewport();
  await expect(box).toHaveAttribute("aria-selected", "true");
  // The trajectory's re-layouts land within seconds; the deep link must survive all of them.
  await page.waitForTimeout(5_000);
  await expect(box).toBeInViewport();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
}

test("a file row's ?token=900 stays in view while the tokenizer and the turn strip arrive", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/0?token=900`);
  await expectTokenStays(page, 900);
  // The re-layout happened: the ids are decoded by then (Llama-3, recognised from the ids).
  await expect(page.getByTestId("token-scroller")).toContainText("Layer-by-Layer Method");
  await expect(page.locator('[data-t="900"]').first()).toBeInViewport();
});

test("an episode's ?token=260 stays in view after the page settles", async ({ page }) => {
  const id = await finishedEpisode(page.request, {
    prompt: "Explain why the sky is blue.",
    policy: "long-winded",
    sampling_params: { max_new_tokens: 500 },
  });
  await page.goto(`/episodes/${id}?token=260`);
  await expectTokenStays(page, 260);
});
