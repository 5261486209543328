import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { exportLine } from "../src/core/files/exportRows";
import { serverFileListSchema } from "../src/core/files/filesWire";
import { modelSegment, promptSegment, trajectory } from "../src/test/trajectoryBuilders";
import { expectRowCount, openRolloutFile } from "./fixtures/openRolloutFile";

// playwright.config.ts names growing.jsonl then drift.jsonl on the server's command line.
const DRIFT_NAME = "drift.jsonl";

let dir: string;
let narrowFile: string;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-file-page-"));
  narrowFile = join(dir, "narrow.jsonl");
  // Trained tokens at positions 10..1023 average -0.99 nats, at 1024..1109 -0.98: the chart's
  // two bars differ by 0.01.
  const ids = Array.from({ length: 1100 }, () => 100);
  const logprobs = ids.map((_, k) => (10 + k < 1024 ? -0.99 : -0.98));
  const t = trajectory([promptSegment(ids.slice(0, 10)), modelSegment(ids, 1, { logprobs })]);
  await writeFile(narrowFile, `${exportLine(t, "rollout-lens/v1")}\n`);
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("a server file opens at the id the API lists, under its own name; old links land on it", async ({
  page,
  request,
}) => {
  const listed = serverFileListSchema.parse(await (await request.get("/api/files")).json());
  const id = listed.files.find((f) => f.name === DRIFT_NAME)?.id ?? "";
  expect(id).not.toBe("");

  await page.goto(`/files/${id}`);
  await expectRowCount(page, 5);
  await expect(page.getByRole("status").getByText(DRIFT_NAME, { exact: true })).toBeVisible();
  await expect(page).toHaveTitle(`${DRIFT_NAME} · Rollout Lens`);

  // The file list links that same id.
  await page.goto("/files");
  await page.getByRole("link", { name: DRIFT_NAME }).click();
  await expect(page).toHaveURL(new RegExp(`/files/${id}$`));

  // A link from before ids were unified (`srv-<id>`) lands on the same page, row and token.
  await page.goto(`/files/srv-${id}/1?token=3`);
  await expect(page).toHaveURL(new RegExp(`/files/${id}/1\\?token=3$`));
  await expect(page.getByRole("navigation", { name: "trajectory navigation" })).toContainText(
    `← ${DRIFT_NAME}`,
  );

  // An id the server does not list says so, instead of blaming another tab.
  await page.goto("/files/f99");
  await expect(page.getByText('The server lists no file "f99"')).toBeVisible();
});

test("a trajectory with no drift does not claim that its segmentation differs", async ({
  page,
}) => {
  await page.goto("/files/f2/0/drift"); // clean-a
  const summary = page.getByTestId("drift-summary");
  await expect(summary).toContainText("No drift");
  await expect(summary).toContainText("text equalyes");
  await expect(summary).not.toContainText("segmentation differs");
});

test("mean logprob by position labels distinct ticks when the bars differ by 0.01", async ({
  page,
}) => {
  await openRolloutFile(page, narrowFile, { rows: 1 });
  const chart = page.getByRole("figure", { name: "mean logprob by position" });
  await expect(chart.locator(".recharts-bar-rectangle")).toHaveCount(2);
  // Bars hang from 0, so the axis reaches 0 and labels stay short; every tick says something new.
  const ticks = chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(ticks.first()).toBeVisible();
  const labels = await ticks.allTextContents();
  expect(labels.length).toBeGreaterThanOrEqual(3);
  expect(new Set(labels).size).toBe(labels.length);
  expect(labels).toContain("0");
  for (const label of labels) expect(label.length).toBeLessThanOrEqual(5);
});
