import { expect, type Locator, test } from "@playwright/test";

/**
 * Every row on screen, top to bottom: its position, and for token rows the gutter and each token
 * span's id, classes, inline style, selection and text; other rows by their text.
 */
const snapshot = (scroller: Locator) =>
  scroller.evaluate((el) => {
    const inner = el.firstElementChild;
    if (!inner) throw new Error("no rows");
    return [...inner.children]
      .map((row) => {
        const top = (row as HTMLElement).style.transform;
        const tokens = row.querySelectorAll("[data-t]");
        if (tokens.length === 0) return { top, text: row.textContent ?? "" };
        return {
          top,
          gutter: row.firstElementChild?.textContent ?? "",
          tokens: [...tokens].map((span) =>
            [
              span.getAttribute("data-t"),
              span.className,
              span.getAttribute("style") ?? "",
              span.getAttribute("aria-selected") ?? "",
              span.getAttribute("tabindex") ?? "",
              span.textContent,
            ].join("|"),
          ),
        };
      })
      .sort((a, b) => parseFloat(a.top.slice(11)) - parseFloat(b.top.slice(11)));
  });

/** True once fast scrolling has settled: the canvas is gone and rows show token boxes again. */
const settled = (scroller: Locator) =>
  scroller.evaluate(
    () => document.querySelector<HTMLCanvasElement>('[data-testid="fast-rows"]')?.hidden === true,
  );

test("rows recycled while scrolling show exactly what a fresh render shows", async ({ page }) => {
  await page.goto("/demo/huge");
  await expect(page.locator('[data-t="0"]')).toBeVisible();
  await page.getByLabel("logprob heatmap").check();
  const scroller = page.getByTestId("token-scroller");
  // Wheel-sized steps, a fast drag (painted into a canvas), a pause, steps back up, and a selection: every
  // row element on screen has by now shown several other rows.
  await scroller.evaluate(async (el) => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    for (let i = 0; i < 60; i++) {
      el.scrollTop += 97;
      await frame();
    }
    for (let i = 1; i <= 8; i++) {
      el.scrollTop = (el.scrollHeight * i) / 20;
      await frame();
    }
  });
  await expect.poll(() => settled(scroller)).toBe(true);
  // Then down a wheel step a frame until a segment boundary scrolls in from below: rows of the
  // next segment (another kind, shaded differently) reuse elements of rows that showed the last.
  const crossed = await scroller.evaluate(async (el) => {
    const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    let sawOneKind = false;
    for (let i = 0; i < 600; i++) {
      el.scrollTop -= i < 40 ? 61 : -120;
      await frame();
      if (i < 40) continue;
      const shaded = el.querySelector("[data-t][style]") !== null;
      const dim = el.querySelector('[data-t][class*="_dim_"]') !== null;
      if (shaded !== dim) sawOneKind = true;
      else if (shaded && dim && sawOneKind) return true;
    }
    return false;
  });
  expect(crossed).toBe(true);
  await expect.poll(() => settled(scroller)).toBe(true);
  const spans = scroller.locator("[data-t]");
  const picked = spans.nth(Math.floor((await spans.count()) / 2));
  const token = await picked.getAttribute("data-t");
  await picked.click();
  await expect(page).toHaveURL(new RegExp(`token=${token}`));
  const position = await scroller.evaluate((el) => el.scrollTop);
  const recycled = await snapshot(scroller);

  // The same place, rendered from scratch.
  await page.reload();
  await expect(page.locator(`[data-t="${token}"]`).first()).toBeVisible();
  await scroller.evaluate((el, top) => {
    el.scrollTop = top;
  }, position);
  await expect.poll(() => snapshot(scroller)).toEqual(recycled);
  expect(recycled.filter((row) => "tokens" in row).length).toBeGreaterThan(20);
  expect(JSON.stringify(recycled)).toContain(`${token}|`);
  expect(JSON.stringify(recycled)).toContain("background: rgb(");
});
