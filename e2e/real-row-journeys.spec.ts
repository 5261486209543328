import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { expectRowCount, openRolloutFile } from "./fixtures/openRolloutFile";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";

const rendered = readFileSync(fixturePath("atropos-rubiks-rendered.jsonl"));

test("rows whose messages are strings: search finds their text, ATIF export writes it", async ({
  page,
}) => {
  await openRolloutFile(
    page,
    {
      name: "rubiks-rendered.jsonl",
      mimeType: "application/x-ndjson",
      buffer: rendered,
    },
    { rows: 2 },
  );
  await page.getByLabel("search").fill("solves Rubik's cubes");
  await expect(page.getByTestId("row-count")).toHaveText("1 / 2 trajectories");
  await page.getByLabel("search").fill("");
  await expectRowCount(page, 2);

  await page.getByLabel("export format").selectOption("atif");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /^export/ }).click(),
  ]);
  const [first] = (await readFile(await download.path(), "utf8")).trimEnd().split("\n");
  const doc = JSON.parse(first ?? "{}") as { steps: { source: string; message: unknown }[] };
  expect(doc.steps.map((s) => s.source)).toEqual(["user", "agent"]);
  expect(doc.steps[0]?.message).toMatch(/^Current state of the Rubik's cube/);
  expect(doc.steps[1]?.message).toMatch(/^<think>\nThe cube's current configuration/);
});

test("a real Llama-3 row branches from a model token into a new episode", async ({ page }) => {
  const line = JSON.parse(
    readFileSync(new URL(`./fixtures/${REAL_LLAMA_ROW}`, import.meta.url), "utf8"),
  );
  const masks = line.masks[0] as number[];
  const at = masks.findIndex((m) => m !== -100) + 3;
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  await page.goto(`/files/${id}/0?token=${at}`);
  await expect(page.getByTestId("detail-position")).toHaveText(`#${at}`);
  await page.getByTestId("branch-here").click();
  const form = page.getByTestId("fork-form");
  await expect(form).toContainText(`Branch at token #${at}`);
  await form.getByRole("button", { name: "Branch", exact: true }).click();
  await expect(page).toHaveURL(/\/episodes\/ep_[0-9a-f]+$/);
  await expect(page.getByTestId("episode-lineage")).toContainText(`at #${at}`);
  await expect(page.getByTestId("episode-status")).toHaveText(/completed|truncated/, {
    timeout: 50_000,
  });
});
