import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FUZZ_CONTAINERS } from "../../test-support/fuzz/containers";
import {
  type FuzzCase,
  type FuzzResult,
  fuzzSummary,
  runFuzzCases,
} from "../../test-support/fuzz/harness";

/*
 * Mutation fuzzing of every file container through the real readers (test-support/fuzz): a
 * bounded, seeded set of cases, so the run is the same everywhere and fits `npm test`.
 */

/** Cases per container; the seeds are 1..N of each seed file in turn. */
const CASES: Readonly<Record<string, number>> = { jsonl: 120, json: 80, parquet: 240 };
const OPTIONS = { caseBudgetMs: 8000, heapMb: 1024, readBudgetMs: 3000 };
/** The child's memory at any case, however damaged the input. */
const RSS_CAP = 1536 * 2 ** 20;

const regressions = fileURLToPath(new URL("../../test-support/fuzz/regressions/", import.meta.url));

/** A message that says what is wrong and where (a line, row group, rows, the footer, a byte). */
const PLACE = /line \d+|row group \d+|rows \d+–\d+|footer|byte|JSON document|Parquet/;

function problems(results: readonly FuzzResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const which = `${r.case.container} seed file ${r.case.seedIndex} seed ${r.case.seed}${r.case.file ? ` (${r.case.file})` : ""}`;
    if (r.kind === "hang" || r.kind === "death") out.push(`${which}: ${r.kind}`);
    if (r.rss > RSS_CAP) out.push(`${which}: RSS ${r.rss}`);
    for (const m of r.messages) {
      if (m.startsWith("UNCAUGHT") || (r.kind === "rejected" && !PLACE.test(m)))
        out.push(`${which}: unclear error: ${m.slice(0, 300)}`);
    }
  }
  return out;
}

describe("fuzzing the file containers", () => {
  it("never hangs, dies or grows, and every rejection says what and where", async () => {
    const cases: FuzzCase[] = [];
    for (const container of FUZZ_CONTAINERS) {
      const n = CASES[container.name] ?? 40;
      const files = container.seeds().length;
      for (let seed = 1; seed <= n; seed++)
        cases.push({ container: container.name, seedIndex: seed % files, seed });
    }
    // The files that found the readers' hangs, kept as they were.
    for (const name of readdirSync(regressions)) {
      const container = name.split("-")[0] ?? "";
      cases.push({ container, seedIndex: 0, seed: 0, file: `${regressions}${name}` });
    }
    const results = await runFuzzCases(cases, OPTIONS);
    console.log(fuzzSummary(results));
    expect(problems(results)).toEqual([]);
    expect(results.filter((r) => r.case.file !== undefined).map((r) => r.kind)).toEqual(
      readdirSync(regressions).map(() => "rejected"),
    );
  }, 120_000);
});
