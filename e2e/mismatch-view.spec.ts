import { expect, type Locator, type Page, test } from "@playwright/test";
import { stringifyJsonLine } from "../src/core/formats/jsonLine";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import { mismatchColor } from "../src/core/mismatch/mismatchScale";
import { sampledLane } from "../src/core/trajectory/lanes";
import type { Trajectory } from "../src/core/trajectory/types";
import { type NoisyServers, runEpisode, startNoisyServers } from "./fixtures/noisyServers";

// An episode run against `rollout-lens sim --logprob-noise 0.3`, rescored from its page: the
// rescored lane differs from the sampled logprobs, the tokens are shaded by δ and the replayed
// corrections' counts agree with a reference computed here from the formulas (docs/mismatch.md).

let servers: NoisyServers;
let id: string;

test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1500, height: 1000 } });

test.beforeAll(async () => {
  servers = await startNoisyServers(0.3);
  id = await runEpisode(servers.origin, "What is 23*19? Then add 7.");
});

test.afterAll(async () => {
  await servers?.stop();
});

/** Scrolls the token list down, as a reader would, until `cell`'s row is mounted. */
async function scrollUntilMounted(page: Page, cell: Locator) {
  const scroller = page.getByTestId("token-scroller");
  await expect
    .poll(async () => {
      if ((await cell.count()) > 0) return true;
      await scroller.evaluate((el) => el.scrollBy(0, el.clientHeight / 2));
      return false;
    })
    .toBe(true);
  await cell.scrollIntoViewIfNeeded();
}

async function storedTrajectory(): Promise<Trajectory> {
  const line = await (await fetch(`${servers.origin}/api/episodes/${id}`)).json();
  const read = readRolloutLine(stringifyJsonLine(line), 1);
  if (read.kind !== "trajectories" || !read.trajectories[0]) throw new Error("unreadable episode");
  return read.trajectories[0];
}

async function rescoredLane(): Promise<(number | null)[]> {
  const res = await fetch(`${servers.origin}/api/rescore`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ episodeId: id }),
  });
  return ((await res.json()) as { lane: (number | null)[] }).lane;
}

/** Reference: per segment, the trained tokens with both values whose r = exp(δ) fails `outside`. */
function referenceCounts(t: Trajectory, a: (number | null)[], outside: (r: number) => boolean) {
  const b = sampledLane(t);
  let k = 0;
  return t.segments.map((s) => {
    let compared = 0;
    let hits = 0;
    for (let i = 0; i < s.tokenIds.length; i++, k++) {
      const x = a[k];
      const y = b[k];
      if (s.lossMask[i] !== 1 || typeof x !== "number" || typeof y !== "number") continue;
      compared += 1;
      if (outside(Math.exp(x - y))) hits += 1;
    }
    return { compared, hits };
  });
}

test("Rescore an episode against a noisy simulator: δ shading, verdicts and counts", async ({
  page,
}) => {
  const trajectory = await storedTrajectory();
  const lane = await rescoredLane();
  const sampled = sampledLane(trajectory);
  await page.goto(`${servers.origin}/episodes/${id}`);
  await expect(page.getByTestId("token-scroller")).toContainText("calculator");
  await expect(page.getByTestId("mismatch-panel")).toHaveCount(0);

  await page.getByRole("button", { name: "Rescore" }).click();
  await expect(page.getByTestId("rescore-status")).toContainText("rescored");
  await expect(page.getByRole("checkbox", { name: "mismatch" })).toBeChecked();
  await expect(page.getByLabel("lane a")).toHaveValue("rescored");
  await expect(page.getByLabel("lane b")).toHaveValue("sampled");
  await expect(page.getByTestId("mismatch-scale")).toBeVisible();

  // The noise shows: trained tokens differ, and each is shaded by its own δ on the ±0.5 scale.
  const model = trajectory.segments.findIndex((s) => s.kind === "model");
  let first = 0;
  for (let s = 0; s < model; s++) first += trajectory.segments[s]?.tokenIds.length ?? 0;
  const token = first + 3;
  const delta = (lane[token] ?? 0) - (sampled[token] ?? 0);
  expect(Math.abs(delta)).toBeGreaterThan(0);
  const cell = page.locator(`[data-t="${token}"]`).first();
  await scrollUntilMounted(page, cell);
  await expect(cell).toHaveAttribute(
    "style",
    new RegExp(mismatchColor(delta, 0.5).background.replace(/[()]/g, "\\$&")),
  );

  // The hover card: both lanes, δ, r, |Δp|, k3 and the verdict of the correction.
  await cell.hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  expect(Number(await page.getByTestId("detail-delta").textContent())).toBeCloseTo(delta, 3);
  await expect(page.getByTestId("detail-verdict")).toHaveText(
    Math.exp(delta) > 2 ? "clipped" : "kept",
  );

  // Token masking with editable bounds: counts per trajectory and per segment as the reference.
  await page.getByLabel("correction").selectOption("token-mask");
  await page.getByLabel("lo", { exact: true }).fill("0.8");
  await page.getByLabel("hi", { exact: true }).fill("1.25");
  const masked = referenceCounts(trajectory, lane, (r) => !(r >= 0.8 && r <= 1.25));
  const total = masked.reduce((sum, c) => sum + c.hits, 0);
  expect(total).toBeGreaterThan(0);
  await expect(page.getByTestId("mismatch-masked")).toHaveText(String(total));
  await expect(page.getByTestId("mismatch-compared")).toHaveText(
    String(masked.reduce((sum, c) => sum + c.compared, 0)),
  );
  for (const [s, c] of masked.entries()) {
    if (c.compared === 0) continue;
    const row = page.locator(`[data-testid="mismatch-segments"] tr[data-segment="${s}"] td`);
    await expect(row.nth(1)).toHaveText(String(c.compared));
    await expect(row.nth(3)).toHaveText(String(c.hits));
  }
  // The token view repaints after the counts: wait for the masked tokens' shading.
  await expect
    .poll(() => page.locator('[data-testid="token-scroller"] [class*="masked"]').count())
    .toBeGreaterThan(0);

  // Token truncation with cap 1.2: the clipped count.
  await page.getByLabel("correction").selectOption("token-trunc");
  await page.getByLabel("cap C").fill("1.2");
  const clipped = referenceCounts(trajectory, lane, (r) => r > 1.2);
  await expect(page.getByTestId("mismatch-clipped")).toHaveText(
    String(clipped.reduce((sum, c) => sum + c.hits, 0)),
  );

  // Geometric-mean masking: ρ = exp(mean δ) over the compared tokens decides for all of them.
  await page.getByLabel("correction").selectOption("geo-mask");
  await page.getByLabel("lo", { exact: true }).fill("0.99");
  await page.getByLabel("hi", { exact: true }).fill("1.01");
  const perSegment = referenceCounts(trajectory, lane, () => true);
  const compared = perSegment.reduce((sum, c) => sum + c.compared, 0);
  let sumDelta = 0;
  lane.forEach((v, k) => {
    const y = sampled[k];
    if (trajectoryMask(trajectory)[k] === 1 && typeof v === "number" && typeof y === "number")
      sumDelta += v - y;
  });
  const rho = Math.exp(sumDelta / compared);
  await expect(page.getByTestId("mismatch-masked")).toHaveText(
    String(rho >= 0.99 && rho <= 1.01 ? 0 : compared),
  );

  // "Next mismatch above x" jumps to the next token with |δ| above it, from the selection; x is
  // half the episode's largest |δ| (the noise is in log-odds: how far a logprob moves varies).
  const mask = trajectoryMask(trajectory);
  const trainedDelta = (k: number) => {
    const v = lane[k];
    const y = sampled[k];
    return typeof v === "number" && typeof y === "number" && mask[k] === 1
      ? Math.abs(v - y)
      : Number.NaN;
  };
  const largest = Math.max(...lane.map((_, k) => trainedDelta(k)).filter((d) => d >= 0));
  const x = Number((largest / 2).toFixed(4));
  expect(x).toBeGreaterThan(0);
  await page.getByLabel("|δ| >").fill(String(x));
  await page.getByRole("button", { name: "Next mismatch" }).click();
  const expected = lane.findIndex((_, k) => trainedDelta(k) > x);
  expect(expected).toBeGreaterThanOrEqual(0);
  await expect(page.getByTestId("detail-position")).toHaveText(`#${expected}`);
  await expect(page.getByTestId("cum-delta-chart")).toBeVisible();
});

function trajectoryMask(t: Trajectory): number[] {
  return t.segments.flatMap((s) => [...s.lossMask]);
}

test("Rescore a file row: its exact ids are scored into a rescored lane and compared", async ({
  page,
}) => {
  const { files } = (await (await fetch(`${servers.origin}/api/files`)).json()) as {
    files: { id: string; name: string }[];
  };
  const slime = files.find((f) => f.name.includes("slime-example"));
  if (!slime) throw new Error(`no slime demo file in ${JSON.stringify(files)}`);
  await page.goto(`${servers.origin}/files/${slime.id}/0`);
  await expect(page.locator('[data-t="0"]').first()).toBeVisible();
  // slime `weight_versions` ["7", "7"]: both model turns under version 7, the newest.
  const spans = page.getByTestId("policy-strip").locator("[data-version]");
  await expect(spans).toHaveCount(2);
  await expect(spans.first()).toHaveAttribute("data-version", "7");
  await expect(spans.first()).toHaveAttribute("data-staleness", "0");
  await expect(page.getByTestId("segment-policy").first()).toHaveText("weights 7 (newest)");
  await page.getByRole("button", { name: "Rescore" }).click();
  await expect(page.getByTestId("rescore-status")).toContainText("rescored");
  await expect(page.getByLabel("lane a")).toHaveValue("rescored");
  const compared = Number(await page.getByTestId("mismatch-compared").textContent());
  expect(compared).toBeGreaterThan(0);
});
