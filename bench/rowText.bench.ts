// Opening a row of a real Llama-3 file as a user meets it: the production build served by the real
// server, a fresh browser context each round (nothing cached), from the double-click on the
// indexed file table's first row to the first frame with decoded text in the trajectory view
// (target <= 1 s), and a row opened by its URL in a fresh context (navigation start to decoded
// text: the page, its workers and the tokenizer all start cold). Baselines in the same rounds: the
// click to the first frame showing the view at all (its tokens or "loading tokenizer"), the same
// page opening the next row (warm: the tokenizer loaded), and for the URL the page's own first
// contentful paint (what any page of the app costs before it has data). The compact tokenizer's
// request is timed from the click (negative: before it, the table having preloaded it), or from
// navigation for the URL. Each round opens the row cold twice: clicking as soon as the table
// settles, and after ROW_TEXT_PAUSE_MS (1 s). ROW_TEXT_ROUNDS sets the rounds (default 5),
// ROW_TEXT_FILE the file (default the e2e's real Llama-3 row; the README's figures are on the
// whole real file that row is cut from: 2.7 MB, 6 lines of atropos groups).
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { launchBenchBrowser, startServer } from "./browserFrames";

const PORT = Number(process.env.ROW_TEXT_PORT ?? 4433);
const ROUNDS = Number(process.env.ROW_TEXT_ROUNDS ?? 5);
const FILE =
  process.env.ROW_TEXT_FILE ??
  join(import.meta.dirname, "..", "e2e", "fixtures", "atropos-llama3-row.jsonl");
const TIMEOUT_MS = 60_000;
/** How long the "user" looks at the settled table before the second cold open's click. */
const PAUSE_MS = Number(process.env.ROW_TEXT_PAUSE_MS ?? 1000);

// Installed in the page as source text. t0: the click; shown: first frame with the view (tokens or
// the loading line); text: first frame with a decoded token and no loading line.
const PROBE = `(() => {
  const probe = { t0: 0, shown: 0, text: 0 };
  window.__rowProbe = probe;
  document.addEventListener("dblclick", () => {
    probe.t0 = performance.now();
    probe.shown = 0;
    probe.text = 0;
    const tick = (now) => {
      const loading = document.querySelector('[data-testid="tokenizer-loading"]');
      const tokens = [...document.querySelectorAll("[data-t]")].slice(0, 200);
      const isDecoded = !loading && tokens.some((t) => !/^#\\d+$/.test((t.textContent ?? "").trim()));
      if (!probe.shown && (loading || isDecoded)) probe.shown = now;
      if (isDecoded) {
        probe.text = now;
        return;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, { capture: true });
})()`;

interface Open {
  readonly shown: number;
  readonly text: number;
}

/** Double-clicks row `row` of the table on `page` and waits for decoded text. */
async function openRow(page: Page, row: number): Promise<Open> {
  await page.locator("[data-row]").nth(row).dblclick();
  await page.waitForFunction(
    () => ((window as unknown as { __rowProbe: { text: number } }).__rowProbe.text ?? 0) > 0,
    undefined,
    { timeout: TIMEOUT_MS, polling: 50 },
  );
  const p = await page.evaluate(
    () =>
      (window as unknown as { __rowProbe: { t0: number; shown: number; text: number } }).__rowProbe,
  );
  return { shown: p.shown - p.t0, text: p.text - p.t0 };
}

/**
 * A fresh context: the table, settled, then `pauseMs` (a user finding the row; the table preloads
 * the tokenizer meanwhile), the first row opened cold, then the second (warm).
 */
async function round(browser: Browser, base: string, fileId: string, pauseMs: number) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(PROBE);
    // When the compact tokenizer was asked for, and answered (ms since the page opened).
    const compact: number[] = [];
    const opened = Date.now();
    page.on("request", (r) => {
      if (r.url().includes("/compact")) compact.push(Date.now() - opened);
    });
    page.on("requestfinished", (r) => {
      if (r.url().includes("/compact")) compact.push(Date.now() - opened);
    });
    await page.goto(`${base}/files/${fileId}`);
    // The whole file indexed ("N / N trajectories"), as a user sees the table settle.
    await page
      .getByTestId("row-count")
      .filter({ hasText: /^([\d,]+) \/ \1 trajectories$/ })
      .waitFor({ timeout: TIMEOUT_MS });
    await page.waitForTimeout(pauseMs);
    const clicked = Date.now() - opened;
    const cold = await openRow(page, 0);
    const compactFromClick = compact.slice(0, 2).map((t) => t - clicked);
    await page.goBack();
    await page.locator("[data-row]").first().waitFor({ timeout: TIMEOUT_MS });
    // The next row, or the same one again in a one-row file: the tokenizer is loaded either way.
    const next = (await page.locator("[data-row]").count()) > 1 ? 1 : 0;
    const warm = await openRow(page, next);
    return { cold, warm, compactFromClick };
  } finally {
    await context.close();
  }
}

/** A row opened by its URL in a fresh context (ms from navigation start). */
interface UrlOpen {
  /** The page's first contentful paint: the baseline (the page itself, before any data). */
  readonly paint: number;
  /** The row's view shown (the "loading tokenizer" line or its tokens). */
  readonly shown: number;
  /** The compact tokenizer asked for and answered. */
  readonly compact: readonly [number, number];
  /** The first frame with decoded text. */
  readonly text: number;
}

// Installed in the page as source text: the first frame showing the row's view at all.
const URL_PROBE = `(() => {
  const probe = { shown: 0 };
  window.__urlProbe = probe;
  const tick = (now) => {
    if (document.querySelector('[data-testid="tokenizer-loading"], [data-t]')) probe.shown = now;
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;

/** A row opened by its URL in a fresh context: navigation start to the first decoded frame. */
async function openByUrl(browser: Browser, url: string): Promise<UrlOpen> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(URL_PROBE);
    const compact: number[] = [];
    const at = () => compact.push(Date.now());
    page.on("request", (r) => r.url().endsWith("/compact") && at());
    page.on("requestfinished", (r) => r.url().endsWith("/compact") && at());
    await page.goto(url);
    const handle = await page.waitForFunction(
      () => {
        const loading = document.querySelector('[data-testid="tokenizer-loading"]');
        const tokens = [...document.querySelectorAll("[data-t]")].slice(0, 200);
        const isDecoded =
          !loading && tokens.some((t) => !/^#\d+$/.test((t.textContent ?? "").trim()));
        return isDecoded ? performance.now() : 0;
      },
      undefined,
      { timeout: TIMEOUT_MS, polling: "raf" },
    );
    const text = (await handle.jsonValue()) as number;
    const marks = await page.evaluate(() => ({
      origin: performance.timeOrigin,
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0,
      shown: (window as unknown as { __urlProbe: { shown: number } }).__urlProbe.shown,
    }));
    const [asked = 0, answered = 0] = compact.map((t) => t - marks.origin);
    return { paint: marks.paint, shown: marks.shown, compact: [asked, answered], text };
  } finally {
    await context.close();
  }
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ms = (xs: readonly number[]) =>
  `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

export default async function rowTextBench(): Promise<void> {
  const server = await startServer(PORT, [FILE]);
  const browser = await launchBenchBrowser();
  try {
    const base = `http://127.0.0.1:${PORT}`;
    const listed = (await (await fetch(`${base}/api/files`)).json()) as {
      files: { id: string; name: string }[];
    };
    const fileId = listed.files[0]?.id;
    if (fileId === undefined) throw new Error(`the server lists no file for ${FILE}`);
    console.log(`row text: ${FILE}, ${ROUNDS} rounds, each in a fresh browser context`);
    const rounds: Awaited<ReturnType<typeof round>>[] = [];
    const paused: Awaited<ReturnType<typeof round>>[] = [];
    const byUrl: UrlOpen[] = [];
    const fetched = (c: readonly number[]) =>
      c.length === 2 ? ` (compact tokenizer fetched ${c[0]}–${c[1]} ms from the click)` : "";
    for (let n = 1; n <= ROUNDS; n++) {
      const r = await round(browser, base, fileId, 0);
      const q = await round(browser, base, fileId, PAUSE_MS);
      const u = await openByUrl(browser, `${base}/files/${fileId}/0`);
      rounds.push(r);
      paused.push(q);
      byUrl.push(u);
      console.log(
        `  round ${n} (load ${loadavg()[0]?.toFixed(1)}): click at once → view ${r.cold.shown.toFixed(0)} ms, ` +
          `→ decoded text ${r.cold.text.toFixed(0)} ms${fetched(r.compactFromClick)}; ` +
          `click after ${PAUSE_MS} ms → text ${q.cold.text.toFixed(0)} ms${fetched(q.compactFromClick)}; ` +
          `warm (next row) → text ${r.warm.text.toFixed(0)} ms; by URL, fresh context: ` +
          `navigation → first paint ${u.paint.toFixed(0)} ms, → view ${u.shown.toFixed(0)} ms, ` +
          `compact tokenizer ${u.compact[0].toFixed(0)}–${u.compact[1].toFixed(0)} ms, ` +
          `→ decoded text ${u.text.toFixed(0)} ms`,
      );
    }
    const cold = rounds.map((r) => r.cold.text);
    console.log(
      `  medians: click → view shown ${ms(rounds.map((r) => r.cold.shown))}; click → decoded ` +
        `text: at once ${ms(cold)}, after ${PAUSE_MS} ms ${ms(paused.map((r) => r.cold.text))}, ` +
        `warm ${ms(rounds.map((r) => r.warm.text))}; by URL: navigation → first paint ` +
        `${ms(byUrl.map((u) => u.paint))} (baseline), → view ${ms(byUrl.map((u) => u.shown))}, ` +
        `→ text ${ms(byUrl.map((u) => u.text))}, first paint → text ` +
        `${ms(byUrl.map((u) => u.text - u.paint))}; target <= 1000 ms: click ` +
        `${median(cold) <= 1000 ? "met" : "NOT met"}, by URL ` +
        `${median(byUrl.map((u) => u.text)) <= 1000 ? "met" : "NOT met"}`,
    );
  } finally {
    await browser.close();
    server.kill("SIGTERM");
  }
}
