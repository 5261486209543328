import { expect, type Page, test } from "@playwright/test";

// Tall enough that every row of these short episodes is mounted at once.
test.use({ viewport: { width: 1400, height: 1700 } });

async function runEpisode(
  page: Page,
  options: { prompt: string; policy: string; maxIterations?: string; tools?: readonly string[] },
) {
  await page.goto("/playground");
  await expect(page.getByTestId("upstream-status")).toContainText("simulator");
  // The tokenizer's family, and how its episodes call tools (docs/templates.md).
  await expect(page.getByTestId("tokenizer-family")).toContainText(
    "Qwen3: tool calls parsed as hermes",
  );
  if (options.tools !== undefined) {
    for (const name of ["calculator", "mock", "ask_human"]) {
      await page.getByRole("checkbox", { name }).setChecked(options.tools.includes(name));
    }
  }
  await page.getByLabel("user prompt").fill(options.prompt);
  await page.getByLabel("simulator policy").selectOption(options.policy);
  if (options.maxIterations !== undefined)
    await page.getByLabel("max iterations").fill(options.maxIterations);
  await page.getByRole("button", { name: "▶ Run" }).click();
  await expect(page).toHaveURL(/episode=ep_[0-9a-f]+/);
  return new URL(page.url()).searchParams.get("episode") ?? "";
}

test("a calculator episode streams in: segments, tool card, final answer", async ({ page }) => {
  await runEpisode(page, { prompt: "What is 12 * 7?", policy: "calculator" });
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");

  const headers = page.locator("[data-segment]");
  await expect(headers).toHaveCount(4);
  await expect(headers.nth(0)).toContainText("prompt");
  await expect(headers.nth(1)).toContainText("model output");
  await expect(headers.nth(1)).toContainText("1 tool call");
  await expect(headers.nth(2)).toContainText("tool result");
  await expect(headers.nth(3)).toContainText("model output");
  await expect(headers.nth(3)).toContainText("turn 2");

  const card = page.getByTestId("tool-call-card");
  await expect(card).toHaveCount(1);
  await expect(card).toContainText("calculator");
  await expect(card).toContainText('{"expression":"12 * 7"}');
  await expect(card).toContainText("84");
  await expect(card).toContainText("ok");

  await expect(page.getByTestId("final-answer")).toContainText(
    "The calculator returned 84, so the answer is 84.",
  );
  // Once the tokenizer worker has the pieces, the tokens read as text, not `#id`.
  await expect(page.getByTestId("token-scroller")).toContainText("so the answer is 84");
  await expect(page.getByTestId("cutoff-marker")).toHaveCount(0);
  await expect(page.getByTestId("streaming-turn")).toHaveCount(0);
});

test("the looping policy with max iterations 2 is cut and marked truncated", async ({ page }) => {
  await runEpisode(page, { prompt: "What is 3 + 4?", policy: "looping", maxIterations: "2" });
  await expect(page.getByTestId("run-status")).toHaveText("✂ truncated");
  await expect(page.getByTestId("run-reason")).toContainText("Max tool iterations (2) reached");
  const marker = page.getByTestId("cutoff-marker");
  await expect(marker).toHaveCount(1);
  await expect(marker).toContainText("Max tool iterations (2) reached");
  // Two tool iterations, each one calculator call; the cut falls after the second model turn.
  await expect(page.getByTestId("tool-call-card")).toHaveCount(2);
  await expect(page.locator("[data-segment]")).toHaveCount(4);
  await expect(page.locator("[data-segment]").nth(3)).toContainText("Max tool iterations (2)");
});

test("a finished episode reopens from the history, deep-linkable to a token", async ({ page }) => {
  const id = await runEpisode(page, { prompt: "What is 6 * 9?", policy: "calculator" });
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");

  const item = page.locator(`[data-testid="history-item"][data-episode="${id}"]`);
  await expect(item).toContainText("completed");
  await item.click();
  await expect(page).toHaveURL(new RegExp(`/episodes/${id}$`));
  await expect(page.getByTestId("episode-status")).toHaveText("completed");
  await expect(page.getByTestId("episode-reason")).toHaveText(
    "the model answered with no further tool call",
  );
  await expect(page.locator("[data-segment]")).toHaveCount(4);
  await expect(page.getByTestId("tool-call-card")).toContainText("54");
  await expect(page.getByTestId("final-answer")).toContainText("the answer is 54");

  await page.goto(`/episodes/${id}?token=200`);
  const token = page.locator('[data-t="200"]').first();
  await expect(token).toBeInViewport();
  await expect(token).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("detail-position")).toHaveText("#200");
});

// With only the human tool, the calculator policy asks the person at the keyboard instead.
test("the human tool waits for an answer in the browser; the answer is the tool result", async ({
  page,
}) => {
  await runEpisode(page, { prompt: "What is 12 * 7?", policy: "calculator", tools: ["ask_human"] });
  const box = page.getByTestId("human-reply");
  await expect(box).toContainText("What is 12 * 7?");
  await expect(page.getByTestId("run-status")).toHaveText("● running");

  await box.getByLabel("your answer").fill("84");
  await box.getByRole("button", { name: "Send answer" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  await expect(box).toHaveCount(0);
  const card = page.getByTestId("tool-call-card");
  await expect(card).toContainText("ask_human");
  await expect(card).toContainText("84");
  await expect(page.getByTestId("final-answer")).toContainText("the answer is 84");
});

test("Abort ends a waiting episode and keeps every token it had", async ({ page }) => {
  const id = await runEpisode(page, {
    prompt: "What is 2 + 3?",
    policy: "calculator",
    tools: ["ask_human"],
  });
  await expect(page.getByTestId("human-reply")).toBeVisible();
  await page.getByRole("button", { name: "■ Abort" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("■ aborted");
  await expect(page.getByTestId("human-reply")).toHaveCount(0);
  // The prompt and the model turn that called the tool stay, ids and all.
  const headers = page.locator("[data-segment]");
  await expect(headers.nth(0)).toContainText("prompt");
  await expect(headers.nth(1)).toContainText("model output");
  await expect(page.getByTestId("tool-call-card")).toContainText("ask_human");
  await expect(page.locator(`[data-testid="history-item"][data-episode="${id}"]`)).toContainText(
    "aborted",
  );
  await page.goto(`/episodes/${id}`);
  await expect(page.getByTestId("episode-status")).toHaveText("aborted");
  await expect(page.getByTestId("episode-reason")).toHaveText("aborted by the user");
});

test("a tool call the model broke is marked where it wrote it, with the parse error", async ({
  page,
}) => {
  await runEpisode(page, { prompt: "What is 12 * 7?", policy: "malformed" });
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  const broken = page.getByTestId("tool-call-card").first();
  await expect(broken).toContainText("parse error");
  await expect(broken).toContainText("errorinvalid JSON");
  await expect(broken.locator("mark")).toHaveText(
    '{"name": "calculator", "arguments": {"expression": "12 * 7"',
  );
  await expect(page.getByTestId("legend")).toContainText("tool call that failed to parse");
  // The marked tokens spell exactly the broken call's markup; the repaired call is not marked.
  await expect(page.getByTestId("token-scroller")).toContainText("so the answer is 84");
  const marked = await page.evaluate(() =>
    [...document.querySelectorAll("[data-t]")]
      .filter((e) => getComputedStyle(e).textDecorationStyle === "wavy")
      .map((e) => e.textContent)
      .join(""),
  );
  expect(marked).toBe(
    '<tool_call> {"name": "calculator", "arguments": {"expression": "12 * 7" </tool_call>',
  );
});

test("a live model token's hover card shows five alternatives, live and stored", async ({
  page,
}) => {
  const id = await runEpisode(page, { prompt: "What is 12 * 7?", policy: "calculator" });
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  const stored = await (await page.request.get(`/api/episodes/${id}`)).json();
  const model = (stored.segments as { kind: string; start: number }[]).find(
    (s) => s.kind === "model",
  );
  const token = (model?.start ?? 0) + 2;
  await page.locator(`[data-t="${token}"]`).first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  await expect(page.getByTestId("token-details")).toContainText("top-5 alternatives");
  await expect(page.getByTestId("token-details").locator("tbody tr")).toHaveCount(5);

  await page.goto(`/episodes/${id}`);
  await page.locator(`[data-t="${token}"]`).first().hover();
  await expect(page.getByTestId("detail-position")).toHaveText(`#${token}`);
  await expect(page.getByTestId("token-details").locator("tbody tr")).toHaveCount(5);
});

test("the calls panel lists one row per /generate call; a row selects the segment it made", async ({
  page,
}) => {
  const id = await runEpisode(page, { prompt: "What is 12 * 7?", policy: "calculator" });
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  const stored = await (await page.request.get(`/api/episodes/${id}`)).json();
  const models = (stored.segments as { kind: string; start: number }[]).filter(
    (s) => s.kind === "model",
  );
  expect(models).toHaveLength(2);
  const second = models[1]?.start ?? -1;

  for (const url of [null, `/episodes/${id}`]) {
    if (url) await page.goto(url);
    const rows = page.getByTestId("calls-panel").getByTestId("call-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("stop");
    await expect(rows.nth(1)).toContainText(stored.calls[1].rid);
    await rows.nth(1).click();
    await expect(rows.nth(1)).toHaveAttribute("aria-current", "true");
    await expect(rows.nth(0)).not.toHaveAttribute("aria-current", "true");
    await expect(page.getByTestId("detail-position")).toHaveText(`#${second}`);
    await expect(page.locator(`[data-t="${second}"]`).first()).toHaveAttribute(
      "aria-selected",
      "true",
    );
  }
});
