import { expect, type Page, test } from "@playwright/test";

// Tall enough that every row of these short episodes is mounted at once.
test.use({ viewport: { width: 1400, height: 1700 } });

interface Line {
  readonly id: string;
  readonly status: string;
  readonly segments: readonly { kind: string; start: number; end: number }[];
}

/** Runs a calculator episode through the API and waits until it is stored. */
async function finishedEpisode(page: Page): Promise<Line> {
  const started = await page.request.post("/api/episodes", {
    data: { prompt: "What is 15*7?", policy: "calculator" },
  });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  let line: Line | undefined;
  await expect
    .poll(async () => {
      line = (await (await page.request.get(`/api/episodes/${id}`)).json()) as Line;
      return line.status;
    })
    .toBe("completed");
  if (!line) throw new Error("no episode");
  return line;
}

test("branch ×4 at a model token, side by side; edit a tool result; all under the parent after a reload", async ({
  page,
}) => {
  const parent = await finishedEpisode(page);
  const model = parent.segments[1];
  const tool = parent.segments[2];
  if (!model || !tool) throw new Error("the calculator episode has no tool turn");
  const at = model.start + 2;

  await page.goto(`/episodes/${parent.id}`);
  await page.locator(`[data-t="${at}"]`).first().click();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${at}`);
  await page.getByTestId("branch-here").click();
  const form = page.getByTestId("fork-form");
  await expect(form).toContainText(`Branch at token #${at}`);
  await form.getByLabel("temperature").fill("0");
  await form.getByLabel(/branches/).fill("4");
  await form.getByRole("button", { name: "Branch ×4" }).click();

  await expect(page).toHaveURL(new RegExp(`/episodes/${parent.id}/branches\\?at=${at}`));
  const rows = page.getByTestId("branch-row");
  await expect(rows).toHaveCount(4);
  for (let i = 0; i < 4; i++) await expect(rows.nth(i)).toContainText("completed");
  await expect(page.getByTestId("branch-departs").first()).not.toHaveText("…");
  await rows.nth(0).getByRole("checkbox").check();
  await rows.nth(1).getByRole("checkbox").check();
  await page.getByTestId("compare-branches").click();
  await expect(page).toHaveURL(
    new RegExp(`/episodes/compare/ep_[0-9a-f]+/ep_[0-9a-f]+\\?from=${at}`),
  );
  const sides = page.getByTestId("compare-side");
  await expect(sides).toHaveCount(2);
  for (let i = 0; i < 2; i++) {
    await expect(sides.nth(i)).toContainText("completed");
    await expect(sides.nth(i).getByTestId("detail-position")).toHaveText(`#${at}`);
  }

  // Edit the tool result: select the first tool token and press b.
  await page.goto(`/episodes/${parent.id}`);
  await page.locator(`[data-t="${tool.start}"]`).first().click();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${tool.start}`);
  await page.keyboard.press("b");
  const editForm = page.getByTestId("fork-form");
  const box = editForm.getByRole("textbox", { name: /tool result/ });
  await expect(box).toHaveValue("105");
  await box.fill("106");
  await editForm.getByRole("button", { name: "Branch", exact: true }).click();
  await expect(page).toHaveURL(/\/episodes\/ep_[0-9a-f]+$/);
  await expect(page.getByTestId("episode-lineage")).toContainText(
    `branch of ${parent.id} at #${tool.start} (tool result edited)`,
  );
  await expect(page.getByTestId("episode-status")).toHaveText("completed");
  const edited = new URL(page.url()).pathname.split("/").at(-1) ?? "";

  await page.goto("/episodes");
  await page.reload();
  const list = page.getByRole("navigation", { name: "episode history" }).first();
  const items = list.getByTestId("history-item");
  await expect(list.getByTestId("history-branch")).toHaveCount(5);
  const order = await items.evaluateAll((links) =>
    links.map((l) => l.getAttribute("data-episode") ?? ""),
  );
  const parentAt = order.indexOf(parent.id);
  expect(parentAt).toBeGreaterThanOrEqual(0);
  const under = order.slice(parentAt + 1, parentAt + 6);
  expect(under).toContain(edited);
  await expect(list.locator(`[data-episode="${edited}"]`)).toContainText(
    `branch at #${tool.start}`,
  );
  await expect(list.getByTestId("history-branch")).toHaveCount(5);
});

test("a playground episode branches from its live view", async ({ page }) => {
  await page.goto("/playground");
  await expect(page.getByTestId("upstream-status")).toContainText("simulator");
  await page.getByLabel("user prompt").fill("What is 15*7?");
  await page.getByLabel("simulator policy").selectOption("calculator");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  const parent = new URL(page.url()).searchParams.get("episode") ?? "";
  const line = (await (await page.request.get(`/api/episodes/${parent}`)).json()) as Line;
  const at = (line.segments[3]?.start ?? 0) + 1;
  await page.locator(`[data-t="${at}"]`).first().click();
  await page.keyboard.press("b");
  const form = page.getByTestId("fork-form");
  await expect(form).toContainText(`Branch at token #${at}`);
  await form.getByRole("button", { name: "Branch", exact: true }).click();
  await expect(page.getByTestId("episode-lineage")).toContainText(`branch of ${parent} at #${at}`);
});

test("a server file row with a known tokenizer branches into the episode store", async ({
  page,
}) => {
  const parent = await finishedEpisode(page);
  // The server serves its own episodes.jsonl as file `episodes`; find the parent's row in it.
  const files = (await (await page.request.get("/api/files")).json()) as {
    files: { id: string; size?: number }[];
  };
  const size = files.files.find((f) => f.id === "episodes")?.size ?? 0;
  const bytes = await (
    await page.request.get(`/api/files/episodes/range?start=0&end=${size}`)
  ).text();
  const row = bytes
    .split("\n")
    .filter((l) => l.trim() !== "")
    .findIndex((l) => l.includes(`"id":"${parent.id}"`));
  expect(row).toBeGreaterThanOrEqual(0);
  const at = (parent.segments[1]?.start ?? 0) + 4;
  await page.goto(`/files/episodes/${row}?token=${at}`);
  await expect(page.getByTestId("detail-position")).toHaveText(`#${at}`);
  await page.getByTestId("branch-here").click();
  await page.getByTestId("fork-form").getByRole("button", { name: "Branch", exact: true }).click();
  await expect(page).toHaveURL(/\/episodes\/ep_[0-9a-f]+$/);
  await expect(page.getByTestId("episode-lineage")).toContainText(
    `branch of ${parent.id} at #${at}`,
  );
});
