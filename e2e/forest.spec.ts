import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { fixturePath } from "../src/test/fixtureFiles";
import { openRolloutFile } from "./fixtures/openRolloutFile";
import { REAL_LLAMA_ROW, servedFileId } from "./fixtures/servedFiles";
import { writeForestFile } from "./forestFiles";

let dir: string;
let file: string;

test.use({ viewport: { width: 1400, height: 900 } });
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-forest-"));
  file = await writeForestFile(dir);
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("open a file → a zero-variance group → its tree → the side-by-side at a branch point", async ({
  page,
}) => {
  await openRolloutFile(page, file, { rows: 7 });
  const groups = page.getByLabel("groups");
  await groups.locator("summary").click();
  await expect(page.getByTestId("forensics-summary")).toContainText(
    "causes: 1 equal-reward, 1 identical",
  );
  await expect(page.getByTestId("forensics-summary")).toContainText("1 duplicate samples");

  // The table's finding filter keeps the members of zero-variance groups.
  await page.getByLabel("rows with finding").selectOption("zero-variance");
  await expect(page).toHaveURL(/finding=zero-variance/);
  await expect(page.getByTestId("row-count")).toHaveText("5 / 7 trajectories");

  const row = groups.getByRole("row").filter({ hasText: "zero variance: equal-reward" });
  await row.getByTestId("forest-link").click();
  await expect(page).toHaveURL(/\/files\/local-1\/groups\/0$/);
  await expect(page.getByTestId("forest-cause").first()).toContainText(
    "zero variance: equal rewards with different completions",
  );
  // The 20 shared tokens (prompt and "The answer is 4"), then one leaf per member.
  await expect(page.getByTestId("forest-node")).toHaveCount(4);

  await page.getByTestId("branch-point").first().click();
  await expect(page).toHaveURL(/branch=20$/);
  const children = page.getByTestId("branch-children");
  // Each child's first token: 13 (".", member 0), 0 and 2 (the others' answers).
  await expect(children.getByRole("row")).toHaveCount(4);
  await expect(children).toContainText("13");
  await children.getByTestId("compare-children").first().click();
  await expect(page).toHaveURL(/\/files\/local-1\/compare\/0\/1\?from=20$/);
  await expect(page.getByTestId("compare-from")).toHaveText("from the branch point #20");
  const sides = page.locator("section[aria-label^='trajectory']");
  await expect(sides).toHaveCount(2);
  // Both sides open at the branch point: its token is the selected one on each.
  for (const side of await sides.all()) {
    await expect(side.getByTestId("detail-position")).toHaveText("#20");
  }
});

test("the real atropos groups: identical members collapsed, their cause as a badge", async ({
  page,
}) => {
  await openRolloutFile(page, fixturePath("atropos-rubiks-groups.jsonl"), { rows: 16 });
  await page.getByLabel("groups").locator("summary").click();
  await expect(page.getByTestId("forensics-summary")).toContainText("causes: 2 identical");
  const treeOf = (group: string) =>
    page
      .getByLabel("groups")
      .getByRole("row")
      .filter({ has: page.getByRole("button", { name: group, exact: true }) })
      .getByTestId("forest-link")
      .click();
  await treeOf("L3");
  await expect(page.getByTestId("forest-cause").first()).toContainText(
    "zero variance: identical completions",
  );
  // Four token-identical members: one lane, counted ×4.
  await expect(page.getByTestId("forest-node")).toHaveCount(1);
  await expect(page.getByRole("img", { name: "forest of 4 members" })).toContainText("×4");
  await page.goBack();
  await page.getByLabel("groups").locator("summary").click();
  await treeOf("L1");
  await expect(page.getByTestId("branch-point")).toHaveText([
    "branch at #1,346",
    "branch at #1,347",
    "branch at #1,353",
  ]);
});

test("a deep link to a served file's group opens its forest once the rows are read", async ({
  page,
}) => {
  const id = await servedFileId(page, REAL_LLAMA_ROW);
  // The page opens before the file's rows are indexed: its group fills in as they arrive.
  await page.goto(`/files/${id}/groups/L1`);
  await expect(page.getByTestId("forest-group")).toHaveText("L1");
  await expect(page.getByLabel("forest navigation")).toContainText("· 1 member ");
  await expect(page.getByTestId("forest-node").first()).toBeVisible();
});
