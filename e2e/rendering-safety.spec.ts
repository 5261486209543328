import { expect, test } from "@playwright/test";

// The hostile demo holds rollout text written to attack the viewer (see src/core/demo/hostileDemo.ts).
test.use({ viewport: { width: 1400, height: 1700 } });

test("hostile rollout text renders as inert, visible text", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Refused to (execute|load|run)/i.test(message.text())) refused.push(message.text());
  });

  await page.goto("/demo/hostile");
  const scroller = page.getByTestId("token-scroller");
  await expect(scroller).toContainText("<script>");
  await expect(scroller).toContainText("onerror=");
  await expect(scroller).toContainText("javascript:");
  // Entities stay as typed: `&lt;b&gt;` is not turned into `<b>`.
  await expect(scroller).toContainText("&lt;b&gt;");
  // Bidi and zero-width characters are shown as escapes, never obeyed.
  await expect(scroller).toContainText("⟨U+202E⟩");
  await expect(scroller).toContainText("⟨U+200B⟩");
  await expect(scroller).toContainText("⟨U+2066⟩");
  const text = (await scroller.textContent()) ?? "";
  expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/);

  const card = page.getByTestId("tool-call-card");
  await expect(card).toContainText("<img src=x onerror=");
  await expect(card).toContainText("<a href=");

  // Nothing the rollout said became an element, and the mouse over it wakes nothing up.
  const main = page.locator("main");
  for (const tag of [
    "script",
    "img",
    "svg[onload]",
    "iframe",
    "a[href^='javascript']",
    "[onerror]",
    "[onmouseover]",
    "b",
  ]) {
    await expect(main.locator(tag), tag).toHaveCount(0);
  }
  await page.getByText("click me").first().click();
  await scroller.hover();
  await page.getByText("model</b>").first().hover();

  const pwned = await page.evaluate(() => Reflect.get(window, "__pwned"));
  expect(pwned).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(refused).toEqual([]);
  console.log(
    "rendering safety: 8 hostile texts (script, img/svg handlers, javascript: link, entities, iframe, U+202E, zero-width) inert; 0 dialogs; __pwned undefined",
  );
});
