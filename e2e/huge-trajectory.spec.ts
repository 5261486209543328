import { expect, type Page, test } from "@playwright/test";

const MAX_TOKEN_ELEMENTS = 5_000;

const countTokens = (page: Page) => page.locator("[data-t]").count();

test("a 131,072-token trajectory keeps the DOM bounded while scrolling to the end", async ({
  page,
}) => {
  await page.goto("/demo/huge");
  await expect(page.locator('[data-t="0"]')).toBeVisible();
  const first = await countTokens(page);
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThan(MAX_TOKEN_ELEMENTS);

  const scroller = page.getByTestId("token-scroller");
  for (const fraction of [0.25, 0.5, 0.75]) {
    await scroller.evaluate((el, f) => {
      el.scrollTop = el.scrollHeight * f;
    }, fraction);
    await expect(page.getByTestId("token-scroller").locator("[data-t]").first()).toBeVisible();
    expect(await countTokens(page)).toBeLessThan(MAX_TOKEN_ELEMENTS);
  }
  await scroller.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await expect(page.locator('[data-t="131071"]').last()).toBeVisible();
  await expect(page.getByTestId("cutoff-marker")).toContainText("length");
  const last = await countTokens(page);
  expect(last).toBeGreaterThan(0);
  expect(last).toBeLessThan(MAX_TOKEN_ELEMENTS);
});

test("dragging through it paints rows into a canvas, then token boxes once it slows", async ({
  page,
}) => {
  await page.goto("/demo/huge");
  await expect(page.locator('[data-t="0"]')).toBeVisible();
  const scroller = page.getByTestId("token-scroller");
  // Several screen-sized jumps on consecutive frames, as a dragged scrollbar makes; each frame
  // records whether the canvas was up, what it showed, and how many token boxes were mounted.
  const drag = () =>
    scroller.evaluate(async (el) => {
      const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="fast-rows"]');
      if (!canvas) throw new Error("no fast-rows canvas");
      const height = el.scrollHeight;
      const seen: { shown: boolean; colours: number; hash: number; boxes: number }[] = [];
      for (let i = 1; i <= 6; i++) {
        el.scrollTop = (height * i) / 40;
        await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        const shown = !canvas.hidden && canvas.width > 0;
        const colours = new Set<number>();
        let hash = 0;
        if (shown) {
          const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height);
          const data = pixels?.data ?? new Uint8ClampedArray();
          for (let p = 0; p < data.length; p += 4 * 7) {
            const rgb = ((data[p] ?? 0) << 16) | ((data[p + 1] ?? 0) << 8) | (data[p + 2] ?? 0);
            colours.add(rgb);
            hash = (hash * 31 + rgb) | 0;
          }
        }
        const boxes = [...el.querySelectorAll("[data-t]")].filter((box) => {
          const r = box.getBoundingClientRect();
          const view = el.getBoundingClientRect();
          return r.bottom > view.top && r.top < view.bottom;
        }).length;
        seen.push({ shown, colours: colours.size, hash, boxes });
      }
      el.scrollTop = (height * 7) / 40;
      return seen;
    });
  // A frame stretched past the 100 ms settle time by a loaded machine ends a drag early, so the
  // drag is retried a few times. Every frame shows rows: token boxes in view, or a canvas painted
  // with background, tints and text that changes as the list moves (never a blank screen).
  let canvasFrames = 0;
  for (let attempt = 0; attempt < 5 && canvasFrames < 2; attempt++) {
    const frames = await drag();
    const painted = frames.filter((f) => f.shown);
    for (const f of frames) expect(f.shown || f.boxes > 0).toBe(true);
    for (const f of painted) expect(f.colours).toBeGreaterThan(3);
    for (let i = 1; i < painted.length; i++)
      expect(painted[i]?.hash).not.toBe(painted[i - 1]?.hash);
    canvasFrames = painted.length;
  }
  expect(canvasFrames).toBeGreaterThanOrEqual(2);
  // Once scrolling pauses the canvas goes and token boxes come back where the drag ended.
  await expect(page.getByTestId("fast-rows")).toBeHidden();
  const end = await scroller.evaluate((el) => el.scrollTop);
  const boxes = scroller.locator("[data-t]");
  const box = boxes.nth(Math.floor((await boxes.count()) / 2));
  await expect(box).toBeInViewport();
  expect(end).toBeGreaterThan(0);
  await box.hover();
  await expect(page.getByTestId("detail-position")).toBeVisible();
});

test("the view's own far jumps (chart clicks) land on token boxes, never the canvas", async ({
  page,
}) => {
  await page.goto("/demo/huge");
  await expect(page.locator('[data-t="0"]')).toBeVisible();
  // Record whether the fast-scroll canvas ever shows from here on.
  await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid="fast-rows"]');
    if (!canvas) throw new Error("no fast-rows canvas");
    const w = window as unknown as { __canvasShown: boolean };
    w.__canvasShown = false;
    new MutationObserver(() => {
      if (!canvas.hasAttribute("hidden")) w.__canvasShown = true;
    }).observe(canvas, { attributes: true });
  });
  const canvasShown = () =>
    page.evaluate(() => (window as unknown as { __canvasShown: boolean }).__canvasShown);
  const scroller = page.getByTestId("token-scroller");

  // A first small scroll, so that every later move is measured against a known position.
  await scroller.evaluate((el) => {
    el.scrollTop = 40;
  });
  await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(40);
  // Clicks far along the chart, then back near the start, scroll there and select a token.
  const chart = page.getByTestId("logprob-chart").locator(".recharts-surface");
  const box = await chart.boundingBox();
  if (!box) throw new Error("no chart");
  const selected = scroller.locator('[aria-selected="true"]');
  for (const [at, lo, hi] of [
    [0.8, 90_000, 120_000],
    [0.2, 15_000, 40_000],
  ] as const) {
    await chart.click({ position: { x: box.width * at, y: box.height / 2 } });
    await expect(selected).toBeInViewport();
    const token = Number(await selected.getAttribute("data-t"));
    expect(token).toBeGreaterThan(lo);
    expect(token).toBeLessThan(hi);
  }
  expect(await canvasShown()).toBe(false);

  // The same distance scrolled by the user (a scrollbar track click) does show it.
  await scroller.evaluate((el) => {
    el.scrollTop = el.scrollHeight * 0.5;
  });
  await expect.poll(canvasShown).toBe(true);
});
