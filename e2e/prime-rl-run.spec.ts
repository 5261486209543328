import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { startView, type ViewServer } from "./fixtures/viewServer";

// `rollout-lens view OUTPUT_DIR` on a prime-rl output directory as its FileMonitor writes it
// (`rollouts/step_N/{train|eval}/{all|effective}/traces.jsonl`, verifiers Episode records with
// real Llama-3 ids; test-support/fixtureWriters/primeRlRun.ts), its own server process.

let view: ViewServer;
let origin: string;
let output = "";

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1400, height: 1000 } });

test.beforeAll(async () => {
  view = await startView(fixturePath("prime-rl-run"), "prime-rl-run");
  origin = view.origin;
  output = view.output();
});

test.afterAll(async () => {
  await view?.stop();
});

test("view a prime-rl output dir: its traces by step, train and eval, one trajectory per branch", async ({
  page,
}, testInfo) => {
  expect(output).toContain("5 step files");
  expect(output).toMatch(/left out: .*metrics\.jsonl/);

  await page.goto(`${origin}/files`);
  const run = page.getByRole("region", { name: "run prime-rl-run" });
  await expect(run.getByRole("heading", { name: "Run prime-rl-run: 5 step files" })).toBeVisible();
  const links = run.getByRole("link", { name: /^step \d/ });
  expect(await links.allTextContents()).toEqual([
    "step 0, train, all",
    "step 0, train, effective",
    "step 1, eval, all",
    "step 1, train, all",
    "step 1, train, effective",
  ]);
  // The charts count the training episodes once per step: eval and `effective` are listed only.
  const progress = run.getByTestId("run-progress");
  await expect(progress).toContainText("2 steps", { timeout: 90_000 });
  await expect(progress).toContainText("3 eval or repeated-subset files listed, not charted");
  await expect(run.getByTestId("run-reward-count")).toHaveText("2 of 2 steps");
  await expect(run.getByTestId("run-driftRate-count")).toHaveText("2 of 2 steps");
  await page.screenshot({ path: testInfo.outputPath("prime-rl-run-files.png") });

  // Step 0's training episodes: 2 episodes, 3 branches (the first trace forked).
  await links.first().click();
  await expect(page.getByTestId("run-step")).toHaveText("step 0, train, all (1 of 5)");
  await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");
  await expect(page.getByText("verifiers", { exact: true }).first()).toBeVisible();
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("model output · mask 1 (trained)").first()).toBeVisible();
  // Decoded once the record's tokenizer (Llama-3, named by the record's model) has loaded.
  await expect(page.getByTestId("token-scroller")).toContainText("<|begin_of_text|>", {
    timeout: 60_000,
  });
  await page.screenshot({ path: testInfo.outputPath("prime-rl-run-trajectory.png") });

  // The eval step opens like any other (its id comes from its path: the link names it).
  await page.goto(`${origin}/files`);
  await run.getByRole("link", { name: "step 1, eval, all" }).click();
  await expect(page.getByTestId("run-step")).toHaveText("step 1, eval, all (3 of 5)");
  await expect(page.getByTestId("row-count")).toHaveText("1 / 1 trajectories");
});
