/**
 * Forest view benchmark (docs/forest.md): one atropos group of 512 members that part one after
 * another (a comb: member m leaves the others 4 tokens after member m − 1), so its forest has
 * 1,023 nodes and 511 branch points. In a production build in Chromium: navigation to the drawn
 * forest, then the page scrolled through the whole icicle in 240 frames under a trace, main-thread
 * work per frame against an idle frame loop on the same page (this machine's floor). Target:
 * p95 <= 10 ms. Run: `npm run bench -- forestView`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { readRolloutLine } from "../src/core/formats/readRolloutLine";
import {
  type FrameWork,
  frameWork,
  launchBenchBrowser,
  startServer,
  summary,
} from "./browserFrames";

const PORT = 4398;
const MEMBERS = 512;
const PROMPT = 256;
const STRIDE = 4;
const TAIL = 24;
const TRACED_RUNS = 3;

/** One atropos line: member m shares the others' tokens up to PROMPT + STRIDE·m, then its own. */
function combLine(): string {
  const tokens: number[][] = [];
  const masks: number[][] = [];
  for (let m = 0; m < MEMBERS; m++) {
    const shared = PROMPT + STRIDE * m;
    const ids = Array.from({ length: shared }, (_, i) => 1000 + (i % 5000));
    for (let j = 0; j < TAIL + STRIDE * (MEMBERS - m); j++) ids.push(20000 + m * 7 + (j % 97));
    tokens.push(ids);
    masks.push(ids.map((id, i) => (i < PROMPT ? -100 : id)));
  }
  const scores = Array.from({ length: MEMBERS }, (_, m) => (m % 5) / 4);
  return JSON.stringify({ tokens, masks, scores });
}

async function scrollFrames(page: Page, steps: number, isScrolling: boolean): Promise<void> {
  await page.evaluate(
    async ({ steps, isScrolling }) => {
      window.scrollTo(0, 0);
      await new Promise<void>((resolve) => setTimeout(resolve, 300));
      const height = document.documentElement.scrollHeight - window.innerHeight;
      for (let i = 0; i < steps; i++) {
        await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
        if (isScrolling) window.scrollTo(0, (height * (i + 1)) / steps);
      }
    },
    { steps, isScrolling },
  );
}

async function traced(page: Page, isScrolling: boolean): Promise<ReturnType<typeof summary>> {
  const pooled: FrameWork[] = [];
  const browser = page.context().browser();
  if (!browser) throw new Error("no browser");
  for (let run = 0; run < TRACED_RUNS; run++) {
    const path = join(mkdtempSync(join(tmpdir(), "rl-bench-forest-")), "trace.json");
    await browser.startTracing(page, {
      path,
      categories: ["devtools.timeline", "disabled-by-default-devtools.timeline"],
    });
    await scrollFrames(page, 240, isScrolling);
    await browser.stopTracing();
    pooled.push(...frameWork(path));
  }
  return summary(pooled);
}

export default async function forestViewBench() {
  const dir = mkdtempSync(join(tmpdir(), "rl-bench-forest-file-"));
  const file = join(dir, "comb.jsonl");
  const line = combLine();
  writeFileSync(file, `${line}\n`);
  const read = readRolloutLine(line, 1, undefined, file);
  const key = read.kind === "trajectories" ? read.trajectories[0]?.group : undefined;
  if (key === undefined) throw new Error("the comb line has no group");
  const server = await startServer(PORT, [file]);
  const browser = await launchBenchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const url = `http://127.0.0.1:${PORT}/files/f1/groups/${encodeURIComponent(key)}`;
    const opens: number[] = [];
    for (let run = 0; run < 3; run++) {
      const started = Date.now();
      await page.goto(url);
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="forest-node"]').length >= n,
        2 * MEMBERS - 1,
        { timeout: 120_000 },
      );
      opens.push(Date.now() - started);
    }
    const nodes = await page.locator('[data-testid="forest-node"]').count();
    const branches = await page.locator('[data-testid="branch-point"]').count();
    const idle = await traced(page, false);
    const scroll = await traced(page, true);
    const clickStarted = Date.now();
    await page
      .getByTestId("branch-point")
      .nth(branches - 1)
      .click();
    await page.getByTestId("branch-children").waitFor();
    const clickMs = Date.now() - clickStarted;
    opens.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(
      `forest of ${MEMBERS} members: ${nodes} nodes, ${branches} branch points; navigation -> forest drawn, median of 3: ${opens[1]} ms (file read, forest built in the worker, icicle drawn)`,
    );
    console.log(
      `idle frame loop on the forest page (traced, ${idle.frames} frames): main-thread work p95 ${ms(idle.p95)}, worst ${ms(idle.worst)} -- this machine's floor`,
    );
    console.log(
      `scrolling the whole icicle in 240 frames (traced, ${scroll.frames} frames over ${TRACED_RUNS} runs): main-thread work median ${ms(scroll.median)}, p95 ${ms(scroll.p95)} (target <= 10), p99 ${ms(scroll.p99)}, worst ${ms(scroll.worst)}; CPU p99 ${ms(scroll.cpuP99)}; ${scroll.over16} frames over 16 ms`,
    );
    console.log(`click on the last branch point -> its children listed: ${clickMs} ms`);
  } finally {
    await browser.close();
    server.kill();
  }
}
