import { expect, test } from "@playwright/test";

// Tall enough that every row of these short episodes is mounted at once.
test.use({ viewport: { width: 1400, height: 1700 } });

test("pick Llama 3.1: the calculator episode's two calls are parsed from <|python_tag|>", async ({
  page,
  request,
}) => {
  await page.goto("/playground");
  await expect(page.getByTestId("upstream-status")).toContainText("simulator");
  const picker = page.getByLabel("tokenizer", { exact: true });
  await expect(picker.locator("option")).toContainText(["server default (qwen3)"]);
  await picker.selectOption("llama3_1");
  // The picked family's tool behaviour, the note the upstream panel shows for the server's own.
  await expect(page.getByTestId("picked-family")).toHaveText(
    "Llama 3.1: tool calls parsed as llama3_json, results as ipython",
  );
  for (const name of ["calculator", "mock", "ask_human"]) {
    await page.getByRole("checkbox", { name }).setChecked(name === "calculator");
  }
  await page.getByLabel("user prompt").fill("What is 23*19 and then 437+1?");
  await page.getByLabel("simulator policy").selectOption("calculator");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await expect(page).toHaveURL(/episode=ep_[0-9a-f]+.*tokenizer=llama3_1/);
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");

  const cards = page.getByTestId("tool-call-card");
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toContainText('{"expression":"23*19"}');
  await expect(cards.nth(0)).toContainText("437");
  await expect(cards.nth(1)).toContainText('{"expression":"437+1"}');
  await expect(cards.nth(1)).toContainText("438");
  // The ids decode with Llama 3.1's tokenizer: its header and tool-call tokens read as text.
  await expect(page.getByTestId("token-scroller")).toContainText("<|python_tag|>");
  await expect(page.getByTestId("token-scroller")).toContainText("<|start_header_id|>");

  const id = new URL(page.url()).searchParams.get("episode");
  const stored = (await (await request.get(`/api/episodes/${id}`)).json()) as {
    tokenizer: string;
    metadata: { family: string };
  };
  expect(stored.tokenizer).toBe("llama3_1");
  expect(stored.metadata.family).toBe("llama3_1");

  // The pick is kept while the researcher looks at other pages (like the other form fields).
  await page.getByRole("link", { name: "Episodes", exact: true }).click();
  await expect(page).toHaveURL(/\/episodes$/);
  await page.getByRole("link", { name: "Playground", exact: true }).click();
  await expect(page.getByLabel("tokenizer", { exact: true })).toHaveValue("llama3_1");

  // Our own episode holds the prefix at every turn in Llama 3.1's rendering (its tool schemas
  // are kept in metadata.tools; docs/templates.md): the turn strip says CLEAN three times.
  await page.goto(`/episodes/${id}`);
  const strip = page.getByTestId("turn-strip");
  const cells = strip.getByTestId("turn-cell");
  await expect(cells).toHaveText(["1", "2", "3"], { timeout: 60_000 });
  for (let k = 0; k < 3; k++) await expect(cells.nth(k)).toHaveAttribute("data-class", "CLEAN");
  await expect(strip.getByTestId("turn-summary")).toContainText("CLEAN");
});
