import { expect, test } from "@playwright/test";

test("?token=N opens scrolled to that token and highlights it", async ({ page }) => {
  await page.goto("/demo/huge?token=100000");
  const token = page.locator('[data-t="100000"]').first();
  await expect(token).toBeInViewport();
  await expect(token).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("detail-position")).toHaveText("#100000");
});
