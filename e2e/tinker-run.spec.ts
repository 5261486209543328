import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { startView, type ViewServer } from "./fixtures/viewServer";

// `rollout-lens view RUN` on a Tinker cookbook run folder written by the cookbook's own capture
// and store code (scripts/fixtures/tinker_fixtures.py): the rollout summaries as steps, the
// capture (every step in one file) listed beside them, its sampled sequences with their ids.

let view: ViewServer;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1400, height: 1000 } });

test.beforeAll(async () => {
  view = await startView(fixturePath("tinker-run"), "tinker-run");
});
test.afterAll(async () => {
  await view?.stop();
});

test("view a Tinker run: summaries by iteration, the capture beside them with ids and steps", async ({
  page,
}) => {
  expect(view.output()).toContain("2 step files, steps 0–1");
  expect(view.output()).toContain("every step in one file: ");
  await page.goto(`${view.origin}/files`);
  const run = page.getByRole("region", { name: "run tinker-run" });
  const links = run.getByRole("link", { name: /^step \d/ });
  await expect(links).toHaveText(["step 0, train", "step 1, train"]);

  await page.getByRole("link", { name: "tinker-run/capture/sample.jsonl" }).click();
  await expect(page.getByTestId("row-count")).toHaveText("21 / 21 trajectories");
  await expect(page.getByText("tinker-capture", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("it2.g0.L17.s3", { exact: true })).toBeVisible();
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("model output · mask 1 (trained)").first()).toBeVisible();
  await expect(page.getByTestId("token-scroller")).toContainText("<|begin_of_text|>", {
    timeout: 60_000,
  });
});
