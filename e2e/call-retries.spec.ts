import { expect, test } from "@playwright/test";
import { exportLine } from "../src/core/files/exportRows";
import { calculatorEpisode } from "../src/test/trajectoryBuilders";
import { openRolloutFile, openRow, textFile } from "./fixtures/openRolloutFile";

test("a call that needed retries shows its attempts, the failed rids and the backoff", async ({
  page,
}) => {
  // The calculator episode's two calls; the first took three attempts (as the client records them).
  const base = calculatorEpisode();
  const calls = (base.calls ?? []).map((call, k) =>
    k === 0
      ? {
          ...call,
          retries: [
            {
              rid: "ep-r1",
              upstream: "http://gpu1:30000",
              error: "SglangHttpError: 503",
              backoffMs: 412,
            },
            {
              rid: "ep-r2",
              upstream: "http://gpu2:30000",
              error: "SglangConnectionError: ECONNRESET",
              backoffMs: 1230,
            },
          ],
        }
      : call,
  );
  const line = exportLine({ ...base, calls }, "rollout-lens/v1");
  await openRolloutFile(page, textFile("retried.jsonl", `${line}\n`, "application/json"), {
    rows: 1,
  });
  // A local file lives in this tab only: open its row from the table, not by a new page load.
  await openRow(page);
  await expect(page).toHaveURL(/\/files\/local-\d+\/0$/);
  const rows = page.getByTestId("call-row");
  await expect(rows).toHaveCount(calls.length);
  const attempts = rows.nth(0).getByTestId("call-attempts");
  await expect(attempts).toContainText("3 (2 failed, 1.6 s backoff)");
  const retries = rows.nth(0).getByTestId("call-retry");
  await expect(retries).toHaveText([
    "attempt 1: ep-r1 on http://gpu1:30000 failed (SglangHttpError: 503); waited 412 ms",
    "attempt 2: ep-r2 on http://gpu2:30000 failed (SglangConnectionError: ECONNRESET); waited 1.2 s",
  ]);
  await expect(rows.nth(1).getByTestId("call-attempts")).toHaveText("1");
  await page.getByTestId("calls-panel").screenshot({ path: "test-results/call-retries.png" });
});
