import { expect, type Locator, type Page, test } from "@playwright/test";

test.use({ viewport: { width: 1400, height: 1200 } });

/** The element's text colour is the app's `--cut` colour (what marks a cut or an abort). */
async function hasCutColour(page: Page, element: Locator): Promise<boolean> {
  const cut = await page.evaluate(() => {
    const probe = document.createElement("span");
    probe.style.color = "var(--cut)";
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  });
  return (await element.evaluate((el) => getComputedStyle(el).color)) === cut;
}

test("following ?episode= shows what that episode ran with; its normal ending is not red", async ({
  page,
}) => {
  const started = await page.request.post("/api/episodes", {
    data: {
      prompt: "What is 2+3? Use the calculator.",
      system: "Be brief.",
      policy: "calculator",
      tokenizer: "llama3_1",
      max_iterations: 3,
      sampling_params: { temperature: 0.5 },
    },
  });
  const { id } = (await started.json()) as { id: string };
  await page.goto(`/playground?episode=${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("✓ completed");
  await expect(page.getByLabel("user prompt")).toHaveValue("What is 2+3? Use the calculator.");
  await expect(page.getByLabel("system prompt")).toHaveValue("Be brief.");
  await expect(page.getByLabel("tokenizer", { exact: true })).toHaveValue("llama3_1");
  await expect(page.getByLabel("max iterations")).toHaveValue("3");
  await expect(page.getByLabel("temperature")).toHaveValue("0.5");
  // It called the calculator, then answered: a normal ending, said as such, not in the cut colour.
  await expect(page.getByTestId("tool-call-card")).toHaveCount(1);
  const reason = page.getByTestId("run-reason");
  await expect(reason).toHaveText("the model answered with no further tool call");
  expect(await hasCutColour(page, reason)).toBe(false);
  // The ids decode with the episode's own tokenizer (Llama 3.1), not the server's Qwen3.
  await expect(page.getByTestId("token-scroller")).toContainText("<|start_header_id|>");
  await page.screenshot({ path: "test-results/playground-follow.png" });
});

test("the upstream box names the family picked in the form, not the server's default", async ({
  page,
}) => {
  await page.goto("/playground");
  const status = page.getByTestId("upstream-status");
  await expect(status.getByTestId("tokenizer-family")).toHaveText(
    /^Qwen3: tool calls parsed as hermes/,
  );
  await page.getByLabel("tokenizer", { exact: true }).selectOption("llama3_1");
  await expect(status.getByTestId("tokenizer-family")).toHaveText(
    /^Llama 3\.1: tool calls parsed as llama3_json/,
  );
  await expect(status.getByTestId("tokenizer-picked")).toHaveText("(picked; server default qwen3)");
  await expect(status.getByTestId("tokenizer-state")).toContainText("loaded");
  await page
    .getByTestId("upstream-status")
    .screenshot({ path: "test-results/upstream-picked.png" });
  // Back to the default: the box says the server's own again.
  await page.getByLabel("tokenizer", { exact: true }).selectOption("");
  await expect(status.getByTestId("tokenizer-family")).toHaveText(
    /^Qwen3: tool calls parsed as hermes/,
  );
  await expect(status.getByTestId("tokenizer-picked")).toHaveCount(0);
});
