import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { parseBundle } from "../src/core/bisect/bundle";
import { fixtureLines } from "../src/test/fixtureFiles";
import { finishedEpisode } from "./fixtures/finishedEpisode";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

// A Qwen3 row sampled at T = 0.7 with top_p = 0.9, bisected against the embedded simulator: every
// knob but the second upstream runs (the server has one), the table shows them, one click opens
// a knob's per-token lanes, and Export bundle downloads what `rollout-lens bisect --bundle` reruns.
const line = (fixtureLines("reference-rollout-lens.jsonl")[0] ?? "").replace(
  '"temperature":1,',
  '"temperature":0.7,"top_p":0.9,',
);

test("the bisect lab: run every knob, open a knob's lanes, export the bundle", async ({
  page,
}, testInfo) => {
  await openRolloutFile(page, textFile("sampled-t07.jsonl", `${line}\n`), { rows: 1 });
  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-1\/0$/);
  await page.getByRole("link", { name: "Bisect", exact: true }).click();
  await expect(page).toHaveURL(/\/files\/local-1\/0\/bisect$/);

  await page.getByRole("button", { name: "Run bisect" }).click();
  const table = page.getByTestId("bisect-table");
  await expect(table).toBeVisible({ timeout: 60_000 });
  for (const knob of ["reference", "temperature", "top_p", "batch", "decode"]) {
    await expect(
      table.locator(`tr[data-knob="${knob}"]`).getByRole("button", { name: "Lanes" }),
    ).toBeVisible();
  }
  await expect(table.locator('tr[data-knob="upstream"]')).toContainText(
    "unchecked: no second upstream",
  );
  await expect(page.getByTestId("bisect-summary")).toContainText(
    "33 ids, 8 trained · baseline sampled",
  );
  await page.screenshot({ path: testInfo.outputPath("bisect-table.png") });

  await table.locator('tr[data-knob="temperature"]').getByRole("button", { name: "Lanes" }).click();
  await expect(page).toHaveURL(/knob=temperature/);
  const lanes = page.getByTestId("knob-lanes");
  await expect(lanes).toContainText("temperature: per-token lanes (8 trained tokens");
  await expect(lanes.locator("[data-token]")).toHaveCount(8);
  await expect(lanes.locator('[data-token="13"]')).toContainText("151657");
  await page.screenshot({ path: testInfo.outputPath("bisect-lanes.png"), fullPage: true });

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export bundle" }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe("ep42.bisect.json");
  const parsed = parseBundle(readFileSync((await saved.path()) ?? "", "utf8"), "bundle");
  if (!parsed.ok) throw new Error(parsed.error);
  expect(parsed.bundle.knobs.map((k) => `${k.knob}:${k.status}`)).toEqual([
    "reference:ran",
    "temperature:ran",
    "top_p:ran",
    "batch:ran",
    "decode:ran",
    "upstream:unchecked",
  ]);
  expect(parsed.bundle.server.server_info).toMatchObject({ simulator: true });
});

test("an episode's Bisect link runs the lab on the stored episode", async ({ page, request }) => {
  const id = await finishedEpisode(request, {
    prompt: "What is 12*12?",
    policy: "calculator",
    sampling_params: { temperature: 0.7, top_p: 0.9 },
  });
  await page.goto(`/episodes/${id}`);
  await page.getByRole("link", { name: "Bisect", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${id}/bisect$`));
  await page.getByRole("button", { name: "Run bisect" }).click();
  const table = page.getByTestId("bisect-table");
  await expect(table).toBeVisible({ timeout: 60_000 });
  await expect(table.locator('tr[data-knob="temperature"]')).toContainText(
    "scaled to the sampling T = 0.7",
  );
  await expect(table.locator('tr[data-knob="top_p"]')).toContainText("top_p 0.9");
  await table.locator('tr[data-knob="batch"]').getByRole("button", { name: "Lanes" }).click();
  await expect(page.getByTestId("knob-lanes")).toContainText("batch: per-token lanes");
  // One nav on the episode's pages: Drift from Bisect, Bisect back from Drift, Tokens home.
  const nav = page.getByRole("navigation").filter({ hasText: id });
  await expect(nav.locator('[aria-current="page"]')).toHaveText("Bisect");
  await nav.getByRole("link", { name: "Drift", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${id}/drift$`));
  await expect(nav.locator('[aria-current="page"]')).toHaveText("Drift");
  await nav.getByRole("link", { name: "Bisect", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${id}/bisect$`));
  await nav.getByRole("link", { name: "Tokens", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${id}$`));
});
