import { expect, test } from "@playwright/test";
import { FORMAT_IDS } from "../src/core/formats/types";

test("the start page lists every format the readers know", async ({ page }) => {
  await page.goto("/");
  const formats = page.getByTestId("home-formats");
  // Each format by its id, or by the tool that writes it where the id does not say.
  const shown: Record<string, string> = {
    strands: "strands-sglang",
    prime: "prime-rl",
    "nemo-rl": "NeMo-RL",
    art: "ART",
    atif: "ATIF",
  };
  for (const id of FORMAT_IDS) await expect(formats).toContainText(shown[id] ?? id);
  await expect(page.getByRole("link", { name: "Open a rollout file" })).toBeVisible();
});
