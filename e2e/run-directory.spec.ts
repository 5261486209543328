import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { generateLine } from "../src/test/rolloutFileGenerator";
import { startViewCommand, type ViewServer } from "./fixtures/viewServer";

// `rollout-lens view DIR` on a training run of 20 step files (`{step}.jsonl`, written here, steps
// 5, 10, ..., 100 so step order is not name order), its own server process as a user runs it.

const STEPS = Array.from({ length: 20 }, (_, k) => (k + 1) * 5);
const ROWS = 6;

let dir: string;
let origin: string;
let view: ViewServer | undefined;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 1100 } });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-run-e2e-"));
  const run = join(dir, "grpo-run");
  await mkdir(run);
  for (const [k, step] of STEPS.entries()) {
    const lines = Array.from({ length: ROWS }, (_, r) =>
      // Longer trajectories as the run goes on: the length chart has a trend to show.
      generateLine(k * ROWS + r, { tokens: 60 + 10 * k }),
    );
    await writeFile(join(run, `${step}.jsonl`), `${lines.join("\n")}\n`);
  }
  await writeFile(join(run, "config.json"), "{}");
  view = await startViewCommand([run], dir);
  origin = view.origin;
});

test.afterAll(async () => {
  await view?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("view DIR: a run's step files in step order, n / p between steps, per-step charts", async ({
  page,
}) => {
  const output = view?.output() ?? "";
  expect(output).toContain("run ");
  expect(output).toContain("20 step files, steps 5–100");
  expect(output).toMatch(/name no step and are left out: .*config\.json/);
  expect(output).toContain(`Open ${origin}/files`);

  await page.goto(`${origin}/files`);
  const run = page.getByRole("region", { name: "run grpo-run" });
  await expect(run.getByRole("heading", { name: "Run grpo-run: 20 step files" })).toBeVisible();
  // Step order, not name order (100.jsonl sorts before 15.jsonl as text).
  const links = run.getByRole("link", { name: /^step \d+$/ });
  await expect(links).toHaveCount(20);
  expect(await links.allTextContents()).toEqual(STEPS.map((s) => `step ${s}`));

  // The per-step charts fill in as the server's worker computes each step (then cached).
  await expect(run.getByTestId("run-progress")).toHaveText("20 steps", { timeout: 90_000 });
  for (const metric of ["reward", "length"]) {
    await expect(run.getByTestId(`run-${metric}-count`)).toHaveText("20 of 20 steps");
  }
  // The generated rows name no tokenizer and their ids match no family: drift is not checked
  // with a guessed vocabulary, and the chart says so.
  await expect(run.getByTestId("run-driftRate-count")).toHaveText("0 of 20 steps");
  await expect(run.getByRole("figure", { name: "per-step drift rate" })).toContainText(
    "not checked: tokenizer unknown",
  );
  const lengthChart = run.getByRole("figure", { name: "per-step mean length (tokens)" });
  await expect(lengthChart.locator(".recharts-line-dot")).toHaveCount(20);
  await expect(run.getByRole("figure", { name: /per-step drift rate/ })).toBeVisible();
  // These files carry one logprob series: the mismatch chart says so instead of drawing zeros.
  await expect(run.getByRole("figure", { name: /per-step logprob mismatch/ })).toContainText(
    "not recorded: the file carries one logprob series",
  );
  // Group forensics per step: the generated rollouts come in groups, charted on every step.
  for (const metric of ["zeroVariance", "duplicates"]) {
    await expect(run.getByTestId(`run-${metric}-count`)).toHaveText("20 of 20 steps");
  }
  const zeroVariance = run.getByRole("figure", { name: "per-step zero-variance groups" });
  await expect(zeroVariance.locator(".recharts-line-dot")).toHaveCount(20);

  // Step 5's table, then n / p through the run.
  await links.first().click();
  // A step file's id comes from its path below the run (server/files/fileRegistry.ts).
  await expect(page).toHaveURL(new RegExp(`^${origin}/files/r1-[0-9a-f]{12}$`));
  const stepLabel = page.getByTestId("run-step");
  await expect(stepLabel).toHaveText("step 5 (1 of 20)");
  const status = page.getByRole("status").filter({ has: page.getByTestId("row-count") });
  await expect(status).toContainText("5.jsonl");
  await expect(page.getByTestId("row-count")).toHaveText(`${ROWS} / ${ROWS} trajectories`);
  await page.keyboard.press("p"); // nothing before the first step
  await expect(stepLabel).toHaveText("step 5 (1 of 20)");
  for (const [k, step] of STEPS.slice(1, 4).entries()) {
    await page.keyboard.press("n");
    await expect(stepLabel).toHaveText(`step ${step} (${k + 2} of 20)`);
    await expect(page).toHaveURL(new RegExp(`^${origin}/files/r1-[0-9a-f]{12}$`));
    // The step's own file is what the table now shows.
    await expect(status).toContainText(`${step}.jsonl`);
    await expect(page.getByTestId("row-count")).toHaveText(`${ROWS} / ${ROWS} trajectories`);
  }
  await page.keyboard.press("p");
  await expect(stepLabel).toHaveText("step 15 (3 of 20)");
  // The step page shows the same charts (from cache), each drawn one marked at this step: reward,
  // length and the two group charts (mismatch is not recorded in these files, drift not checked).
  const here = page.getByRole("region", { name: "run charts" });
  await expect(here.getByTestId("run-progress")).toHaveText("20 steps");
  await expect(here.locator(".recharts-reference-line")).toHaveCount(4);

  // Reopening is instant: every step's statistics come from the cache (no rollout is read).
  // The step files' ids come from their paths: the listing names them, in step order.
  const { files } = (await fetch(`${origin}/api/files`).then((r) => r.json())) as {
    files: { id: string; run?: unknown }[];
  };
  const ids = files.filter((f) => f.run !== undefined).map((f) => f.id);
  expect(ids).toHaveLength(STEPS.length);
  const started = Date.now();
  const replies = await Promise.all(
    ids.map((id) => fetch(`${origin}/api/files/${id}/step-stats`).then((r) => r.json())),
  );
  expect(Date.now() - started).toBeLessThan(2000);
  expect(replies.map((r) => r.trajectories)).toEqual(STEPS.map(() => ROWS));
  expect(replies[19].length).toBeGreaterThan(replies[0].length);
});
