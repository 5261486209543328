import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort } from "../test-support/freePort";

// `rollout-lens view dump.jsonl --map SPEC`, its own server process as a user runs it: a JSONL dump
// no known producer wrote opens through the mapping given on the command line, no dialog.

const MAP = "prompt=prompt_ids,response=completion_ids,logprobs=logprobs,reward=pass_rate";
const LINES = [
  { prompt_ids: [151644, 872, 198], completion_ids: [19, 151645], logprobs: [-0.5, -0.25] },
  { prompt_ids: [151644, 872], completion_ids: [20], logprobs: [-1] },
  { prompt_ids: [151644], completion_ids: [21, 22, 23], logprobs: [-0.5, -0.5, -0.5] },
].map((r, k) => JSON.stringify({ ...r, pass_rate: [0.75, 0.25, 1][k] }));

let dir: string;
let origin: string;
let view: ChildProcess | undefined;
let output = "";

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rollout-lens-view-map-e2e-"));
  const dump = join(dir, "dump.jsonl");
  await writeFile(dump, `${LINES.join("\n")}\n`);
  const data = join(dir, "data");
  await mkdir(data);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const { ROLLOUT_LENS_TOKEN: _unused, ...env } = process.env;
  const args = ["view", dump, "--map", MAP, "--no-open", "--port", String(port), "--data", data];
  const child = spawn(process.execPath, ["bin/rollout-lens.mjs", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  view = child;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${origin}/api/files`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`view did not start; its output:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.afterAll(async () => {
  if (view && view.exitCode === null) {
    const exited = new Promise((resolve) => view?.once("exit", resolve));
    view.kill("SIGTERM");
    const timer = setTimeout(() => view?.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await rm(dir, { recursive: true, force: true });
});

test("view --map: a served JSONL dump reads through the mapping, rows and drift, no dialog", async ({
  page,
}) => {
  await page.goto(`${origin}/files/f1`);
  await expect(page.getByTestId("row-count")).toHaveText("3 / 3 trajectories");
  await expect(page.getByRole("dialog", { name: "column mapping" })).toBeHidden();
  await expect(page.getByText("slime", { exact: true }).first()).toBeVisible();
  // pass_rate is no reward name a suggestion knows: only --map makes it the reward.
  await expect(page.getByTestId("rollout-table")).toContainText("0.75");
  await page.getByRole("button", { name: "Check drift" }).click();
  await expect(page.getByTestId("file-drift-summary")).toContainText("of 3 trajectories drifted");
});
