import { expect, test } from "@playwright/test";
import { type NoisyServers, runEpisode, startNoisyServers } from "./fixtures/noisyServers";

// Regenerates docs/screenshots/mismatch-view-{light,dark}.png (`npm run screenshots`): an episode
// run against `rollout-lens sim --logprob-noise 0.3`, rescored, token masking replayed.

let servers: NoisyServers;
let id: string;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 900 } });

test.beforeAll(async () => {
  servers = await startNoisyServers(0.3);
  id = await runEpisode(servers.origin, "What is 23*19? Then add 7.");
});

test.afterAll(async () => {
  await servers?.stop();
});

for (const theme of ["light", "dark"] as const) {
  test(`mismatch view screenshot, ${theme}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: theme });
    await page.goto(`${servers.origin}/episodes/${id}`);
    // The tokenizer worker has the pieces: tokens read as text, not `#id`.
    await expect(page.getByTestId("token-scroller")).toContainText("I should use the calculator");
    await page.getByRole("button", { name: "Rescore" }).click();
    await expect(page.getByTestId("rescore-status")).toContainText("rescored");
    await page.getByLabel("correction").selectOption("token-mask");
    await page.getByLabel("lo", { exact: true }).fill("0.7");
    await page.getByLabel("hi", { exact: true }).fill("1.4");
    // Under the noisy episode's largest |δ| (about 0.3 with 0.3 of noise), so one is found.
    await page.getByLabel("|δ| >").fill("0.2");
    await page.getByRole("button", { name: "Next mismatch" }).click();
    await expect(page.getByTestId("detail-verdict")).toBeVisible();
    await page.screenshot({ path: `docs/screenshots/mismatch-view-${theme}.png` });
  });
}
