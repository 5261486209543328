import { expect, test } from "@playwright/test";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { type NoisyServers, runEpisode, startNoisyServers } from "./fixtures/noisyServers";

// An episode sampled at T = 0.7 by `rollout-lens sim --logit-model --logprob-noise 0.05`, with the
// whole top-k recorded, rescored from its page (prompt scoring is at T = 1): the mismatch panel
// splits δ into temperature, support and residual (docs/mismatch.md "Decomposition") and, the
// temperature term explaining most of it, calls the row spurious.

let servers: NoisyServers;
let id: string;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 1000 } });

test.beforeAll(async () => {
  servers = await startNoisyServers(0.05, ["--logit-model"]);
  id = await runEpisode(servers.origin, "What is 23*19? Then add 7.", {
    sampling_params: { temperature: 0.7 },
    top_logprobs_num: 20,
  });
});

test.afterAll(async () => {
  await servers?.stop();
});

test("Rescore a T = 0.7 episode: the stacked temperature, support and residual lanes", async ({
  page,
}) => {
  const line = await (await fetch(`${servers.origin}/api/episodes/${id}`)).json();
  const read = readRolloutLine(stringifyJsonLine(line), 1);
  if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error("unreadable episode");
  expect(read.trajectories[0].samplingParams?.temperature).toBe(0.7);

  await page.goto(`${servers.origin}/episodes/${id}`);
  await expect(page.getByTestId("token-scroller")).toBeVisible();
  await page.getByRole("button", { name: "Rescore" }).click();
  await expect(page.getByRole("checkbox", { name: "mismatch" })).toBeChecked();

  const figure = page.getByTestId("decomposition");
  await expect(figure).toBeVisible();
  await expect(figure.locator("[data-lane]")).toHaveCount(3);
  // Every model token's terms are known: the whole top-k is recorded, T on both lanes known.
  await expect(page.getByTestId("decomposition-verdict")).toHaveAttribute(
    "data-verdict",
    "spurious",
  );
  await expect(page.getByTestId("decomposition-means")).toContainText(/(\d+)\/\1 known/);

  // The token details give the terms of the token with the largest |δ|.
  await page.getByTestId("mismatch-stats").getByRole("button").first().click();
  const temperature = page.getByTestId("detail-temperature");
  await expect(temperature).toHaveText(/^-?\d/);
  await expect(page.getByTestId("detail-support")).toHaveText("0.0000");
  await expect(page.getByTestId("detail-residual")).toHaveText(/^-?\d/);
  await page
    .getByTestId("mismatch-panel")
    .screenshot({ path: "test-results/mismatch-decomposition.png" });
});
