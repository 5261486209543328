import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { fixtureLines, fixturePath } from "../src/test/fixtureFiles";
import { primeRolloutParquet } from "../src/test/parquetFixtures";
import { openRolloutFile, textFile } from "./fixtures/openRolloutFile";

let dir: string;
let parquetFile: string;
let atifFile: string;
let zstdFile: string;

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-e2e-formats-"));
  parquetFile = join(dir, "rollouts.parquet");
  await writeFile(parquetFile, new Uint8Array(primeRolloutParquet(2)));
  zstdFile = join(dir, "zstd.parquet");
  await writeFile(zstdFile, new Uint8Array(primeRolloutParquet(2, "ZSTD")));
  atifFile = join(dir, "trajectory.json");
  const doc = JSON.parse(fixtureLines("reference-atif.jsonl")[2] ?? "{}");
  await writeFile(atifFile, JSON.stringify(doc, null, 2));
});
test.afterAll(() => rm(dir, { recursive: true, force: true }));

test("a ZSTD-compressed Parquet file (ART's, polars' codec) opens in the browser worker", async ({
  page,
}) => {
  await openRolloutFile(page, zstdFile, { rows: 3 });
  await expect(page.getByText("prime-rl-rollouts", { exact: true }).first()).toBeVisible();
});

test("a Parquet file opens in the browser, row groups indexed like lines, and exports as ATIF", async ({
  page,
}) => {
  await openRolloutFile(page, parquetFile);
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await expect(page.getByTestId("line-count")).toHaveText("3 records");
  await expect(page.getByTestId("row-count")).toContainText("3");
  await expect(page.getByText("prime-rl-rollouts", { exact: true }).first()).toBeVisible();

  await page.getByLabel("export format").selectOption("atif");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: /^export/ }).click(),
  ]);
  const lines = (await readFile(await download.path(), "utf8")).trimEnd().split("\n");
  expect(lines).toHaveLength(3);
  const doc = JSON.parse(lines[0] ?? "{}");
  expect(doc.schema_version).toBe("ATIF-v1.7");
  const agent = doc.steps.find((s: { source: string }) => s.source === "agent");
  expect(agent.metrics.prompt_token_ids).toHaveLength(13);
  expect(agent.metrics.completion_token_ids).toHaveLength(4);
  expect(agent.metrics.logprobs).toEqual([-0.5, -0.25, -0.125, -0.0625]);
});

test("a verl text dump opens with its rewards and says why drift is off", async ({ page }) => {
  await openRolloutFile(page, fixturePath("reference-verl.jsonl"));
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await expect(page.getByTestId("row-count")).toContainText("1");
  const note = page.getByTestId("ids-absent");
  await expect(note).toContainText("decoded text only");
  await expect(note).toContainText("calculate_log_probs");
  await expect(page.getByRole("button", { name: "Check drift" })).toBeDisabled();

  // Its row opens with its text, not an empty token view.
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  const record = page.getByTestId("text-record");
  await expect(record).toContainText("What is 2+2?");
  await expect(record).toContainText("decoded text only");
});

test("an OpenAI chat-messages file opens as its conversations, tool calls shown, searchable", async ({
  page,
}) => {
  const record = (city: string, reward: number) => ({
    messages: [
      { role: "user", content: `Weather in ${city}?` },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { type: "function", function: { name: "get_weather", arguments: `{"city":"${city}"}` } },
        ],
      },
      { role: "tool", content: "sunny" },
      { role: "assistant", content: `It is sunny in ${city}.` },
    ],
    reward,
  });
  const text = `${[record("Paris", 1), record("Lima", 0)].map((r) => JSON.stringify(r)).join("\n")}\n`;
  await openRolloutFile(page, textFile("chats.jsonl", text));
  await expect(page.getByTestId("row-count")).toContainText("2");
  await expect(page.getByText("text-table", { exact: true }).first()).toBeVisible();
  await page.getByLabel("search").fill("Lima");
  await expect(page.getByTestId("row-count")).toHaveText("1 / 2 trajectories");
  await page.getByLabel("search").fill("");
  await expect(page.getByTestId("row-count")).toHaveText("2 / 2 trajectories");
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  const shown = page.getByTestId("text-record");
  await expect(shown).toContainText("Weather in Paris?");
  await expect(shown).toContainText('[tool call] get_weather {"city":"Paris"}');
  await expect(shown).toContainText("It is sunny in Paris.");
  await expect(shown).toContainText("decoded text only");
});

test("ART's trajectories YAML opens: its groups' conversations, and token checks said not run", async ({
  page,
}) => {
  await openRolloutFile(page, fixturePath("dumps/art/trajectories/train/0003.yaml"));
  await expect(page.getByTestId("row-count")).toContainText("4 trajectories");
  await expect(page.getByText("art", { exact: true }).first()).toBeVisible();
  const groups = page.getByLabel("groups");
  await groups.locator("summary").click();
  await groups.getByTestId("forest-link").first().click();
  await expect(page).toHaveURL(/\/files\/local-1\/groups\/0$/);
  await expect(page.getByTestId("forest-group")).toHaveText("0");
  const causes = page.getByTestId("forest-cause");
  await expect(causes.first()).toContainText(
    "not checked: duplicates, branch points and multiplicity need token ids",
  );
  await expect(page.getByText("token-identical")).toHaveCount(0);
  // No token tree to draw: the members are listed with their rewards, each linking to its text.
  const members = page.getByTestId("forest-text-only");
  await expect(members).toContainText("no token tree: the members are text only");
  await expect(page.getByTestId("forest-node")).toHaveCount(0);
  await members.getByRole("link", { name: "member 1 · reward 0" }).click();
  await expect(page).toHaveURL(/\/files\/local-1\/1$/);
  const shown = page.getByTestId("text-record");
  await expect(shown).toContainText('[tool call] get_weather {"city": "Paris"}');
  await expect(shown).toContainText("It is rainy in Paris.");
});

/**
 * Opens TRL's completions table (fixture `path`), finds its "Cusco" row by search and opens it:
 * the row's text record, checked to hold that row's prompt and completion.
 */
async function openTrlCuscoRow(page: Page, path: string): Promise<Locator> {
  await openRolloutFile(page, fixturePath(path));
  await expect(page.getByTestId("row-count")).toContainText("4 trajectories");
  await expect(page.getByText("text-table", { exact: true }).first()).toBeVisible();
  await page.getByLabel("search").fill("Cusco");
  await expect(page.getByTestId("row-count")).toHaveText("1 / 4 trajectories");
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  const shown = page.getByTestId("text-record");
  await expect(shown).toContainText("Name the capital of Peru.");
  await expect(shown).toContainText("Cusco");
  return shown;
}

test("TRL's completions table as W&B writes it (*.table.json) opens as its rows", async ({
  page,
}) => {
  await openTrlCuscoRow(
    page,
    "dumps/wandb/media/table/completions_10_5f1c2a9e8d7b6a4c3f21.table.json",
  );
  // The rewards by function and the advantage TRL logged, beside the text.
  const columns = page.getByTestId("record-columns");
  await expect(columns).toContainText("accuracy_reward0");
  await expect(columns).toContainText("format_rewardNaN");
  await expect(columns).toContainText("advantage-0.7071");
});

test("the same table written by pandas' to_csv opens as its rows, quoted line breaks kept", async ({
  page,
}) => {
  await openTrlCuscoRow(page, "dumps/csv/completions_step10.csv");
  await expect(page.getByTestId("record-columns")).toContainText("advantage-0.7071");
  // Its place is its row, not a line of the file's text (the quoted cells span lines).
  const nav = page.getByRole("navigation", { name: "trajectory navigation" });
  await expect(nav).toContainText("record 4");
});

test("a pretty-printed ATIF trajectory.json opens: contexts and subagents as linked rows", async ({
  page,
}) => {
  await openRolloutFile(page, atifFile);
  await expect(page).toHaveURL(/\/files\/local-1$/);
  await expect(page.getByTestId("line-count")).toHaveText("1 record");
  await expect(page.getByTestId("row-count")).toContainText("3 trajectories");
  await expect(page.getByText("atif", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("main/search-1").first()).toBeVisible();

  // The main trajectory links its next context and its subagent, in this file, and the run
  // that continues it in another; following the subagent link opens that row.
  await page.getByTestId("rollout-table").focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/files\/local-1\/0/);
  const links = page.getByTestId("atif-links");
  await expect(links).toContainText("continued in trajectory.cont-1.json");
  await expect(links).toContainText("subagent run-7-ext (s3://runs/ext.json)");
  await expect(links.getByRole("link", { name: "main#2" })).toBeVisible();
  await links.getByRole("link", { name: "main/search-1" }).click();
  await expect(page).toHaveURL(/\/files\/local-1\/2/);
  await expect(
    page.getByTestId("atif-links").getByRole("link", { name: "main", exact: true }),
  ).toBeVisible();
});
