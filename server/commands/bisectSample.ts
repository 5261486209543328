import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { BisectBundle } from "../../src/core/bisect/bundle";
import {
  pickSample,
  type SampleCandidate,
  type SampleRow,
  sampleDifferences,
  sampleTable,
} from "../../src/core/bisect/sample";
import { SAMPLE_BUNDLE_FORMAT, type SampleBundle } from "../../src/core/bisect/sampleBundle";
import { bisectTable } from "../../src/core/bisect/table";
import type { IdsOnly } from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import { bisectTargetOf, tokenizerFacts } from "../bisect/bisectTarget";
import { type BisectUpstreams, rerunBundle, runBisect } from "../bisect/runBisect";
import { readPickedRows, sampleCandidates } from "../bisect/sampleRows";
import {
  type Checked,
  checkFamilies,
  closeAll,
  type Plan,
  probeAll,
  upstreams,
  wholeNumber,
} from "./bisect";
import type { BisectFlags } from "./bisectSpec";
import type { CommandIo } from "./commandIo";

/** The family check on every row's ids, each message said once; a mismatch refuses the run. */
async function checkAllFamilies(
  io: CommandIo,
  values: BisectFlags,
  targets: readonly (Trajectory | IdsOnly)[],
): Promise<Checked<number>> {
  const probed = await probeAll(values.sglang, values.sglangB);
  if (!probed.ok) return { ok: false, error: `${probed.error}; nothing was rescored` };
  const said = new Set<string>();
  const once: CommandIo = {
    ...io,
    err: (text) => {
      if (!said.has(text)) io.err(text);
      said.add(text);
    },
  };
  let code = 0;
  for (const target of targets) {
    const family = await checkFamilies(once, probed.value, target, values.force === true);
    if (!family.ok) return { ok: false, error: `${family.error}; nothing was rescored` };
    code = Math.max(code, family.value);
  }
  return { ok: true, value: code };
}

/** Why no row can be bisected: each reason the rows give, with how many give it. */
function whyNone(candidates: readonly SampleCandidate[]): string {
  const counts = new Map<string, number>();
  for (const c of candidates)
    if (!c.eligible) counts.set(c.reason, (counts.get(c.reason) ?? 0) + 1);
  const reasons = [...counts].map(
    ([reason, n]) => `${n} row${n === 1 ? "" : "s"}: ${reason.replace(/\.$/, "")}`,
  );
  return reasons.length === 0 ? ": it has no rows" : `: ${reasons.join("; ")}`;
}

/** The picked rows of FILE as bisect inputs, with the sample's facts; or why there is none. */
async function sampleInputs(path: string, n: number, seed: number) {
  const { candidates, badLines, unit } = await sampleCandidates(resolve(path), path);
  const pick = pickSample(candidates, n, seed);
  if (pick.rows.length === 0) {
    const bad =
      badLines.length > 0
        ? `; ${badLines.length} bad ${unit}(s) are not rows (rollout-lens validate FILE names them)`
        : "";
    return {
      ok: false as const,
      error: `${path}: no row to bisect among ${candidates.length}${whyNone(candidates)}${bad}`,
    };
  }
  const found = await readPickedRows(resolve(path), path, pick.rows);
  const rows = pick.rows.map((row) => {
    const f = found.get(row);
    if (f === undefined) throw new Error(`${path}: row ${row} vanished between two reads`);
    return { row, ...f };
  });
  const sample = { file: path, n, seed, rows: pick.rows, skipped: pick.skipped };
  return { ok: true as const, sample, rows, badLines, unit };
}

async function bisectRows(
  plan: Plan,
  path: string,
  rows: readonly { row: number; trajectory: Trajectory; line: number }[],
  up: BisectUpstreams,
): Promise<BisectBundle[]> {
  const bundles: BisectBundle[] = [];
  for (const { row, trajectory: t, line } of rows) {
    const source = { file: path, row, line, trajectory_id: t.id };
    const tokenizer = await tokenizerFacts(t);
    bundles.push(await runBisect({ ...bisectTargetOf(t), source, tokenizer, ...plan }, up));
  }
  return bundles;
}

/** `rollout-lens bisect FILE --sample N [--seed S] ...`; resolves to the exit code. */
export async function runSampleCommand(
  values: BisectFlags,
  path: string,
  plan: Plan,
  io: CommandIo,
): Promise<Checked<number>> {
  const n = wholeNumber("--sample", values.sample ?? "", 1, 10_000);
  const seed = wholeNumber("--seed", values.seed ?? "0", 0, 0xffffffff);
  if (!n.ok) return n;
  if (!seed.ok) return seed;
  let input: Awaited<ReturnType<typeof sampleInputs>>;
  try {
    input = await sampleInputs(path, n.value, seed.value);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `${path} cannot be read: ${why}` };
  }
  if (!input.ok) return input;
  const family = await checkAllFamilies(
    io,
    values,
    input.rows.map((r) => r.trajectory),
  );
  if (!family.ok) return family;
  for (const b of input.badLines) {
    io.err(`bisect: ${path} ${input.unit} ${b.line}: skipped: ${b.error}`);
  }
  const up = upstreams(values.sglang, values.sglangB);
  try {
    const bundles = await bisectRows(plan, path, input.rows, up);
    const bundle: SampleBundle = {
      format: SAMPLE_BUNDLE_FORMAT,
      version: 1,
      created_at: new Date().toISOString(),
      sample: input.sample,
      bundles,
    };
    return { ok: true, value: Math.max(family.value, await reportSample(io, values, bundle)) };
  } finally {
    await closeAll(up);
  }
}

/** `rollout-lens bisect --bundle F` on a sample's bundle: every row rerun, the pooled table compared. */
export async function rerunSampleCommand(
  values: BisectFlags,
  recorded: SampleBundle,
  io: CommandIo,
): Promise<Checked<number>> {
  const targets = recorded.bundles.map((b) => ({ segments: [{ tokenIds: b.ids }] }));
  const family = await checkAllFamilies(io, values, targets);
  if (!family.ok) return family;
  const up = upstreams(values.sglang, values.sglangB);
  try {
    const bundles: BisectBundle[] = [];
    for (const b of recorded.bundles) bundles.push(await rerunBundle(b, up));
    const bundle = { ...recorded, created_at: new Date().toISOString(), bundles };
    const code = await reportSample(io, values, bundle, recorded);
    return { ok: true, value: Math.max(family.value, code) };
  } finally {
    await closeAll(up);
  }
}

function pooled(bundle: SampleBundle): SampleRow[] {
  return sampleTable(
    bundle.bundles.map((b) => ({ row: b.source.row ?? 0, table: bisectTable(b) })),
  );
}

const fixed = (x: number) => x.toFixed(5);

/** The pooled table as text: one line per knob, the rows it could not run on under it. */
export function sampleLines(rows: readonly SampleRow[]): string[] {
  const head = `${"knob".padEnd(12)} ${"rows".padStart(4)} ${"compared".padStart(8)} ${"mean|δ|".padStart(9)} ${"max|δ|".padStart(9)} ${"at row:token".padStart(12)} ${"K3".padStart(9)}  outside [0.9, 1.1]`;
  const lines = [head];
  for (const r of rows) {
    if (r.status === "ran") {
      const at = r.maxAt < 0 ? "-" : `${r.maxRow}:${r.maxAt}`;
      const pct = `${(100 * r.fractionOutside).toFixed(1)}% (${r.outside})`;
      lines.push(
        `${r.knob.padEnd(12)} ${String(r.rows).padStart(4)} ${String(r.compared).padStart(8)} ${fixed(r.meanAbsDelta).padStart(9)} ${fixed(r.maxAbsDelta).padStart(9)} ${at.padStart(12)} ${fixed(r.k3).padStart(9)}  ${pct}`,
      );
    } else lines.push(`${r.knob.padEnd(12)} unchecked on every row`);
    for (const u of r.unchecked)
      lines.push(`${"".padEnd(12)} row ${u.row}: unchecked: ${u.reason}`);
  }
  return lines;
}

async function reportSample(
  io: CommandIo,
  values: BisectFlags,
  bundle: SampleBundle,
  recorded?: SampleBundle,
): Promise<number> {
  if (values.bundleOut !== undefined)
    await writeFile(values.bundleOut, `${JSON.stringify(bundle)}\n`);
  const table = pooled(bundle);
  const differences = recorded ? sampleDifferences(pooled(recorded), table) : undefined;
  const unchecked = table.some((r) => r.unchecked.length > 0);
  const code = Math.max(unchecked ? 1 : 0, differences && differences.length > 0 ? 1 : 0);
  const { sample } = bundle;
  if (values.json) {
    const perRow = bundle.bundles.map((b) => ({
      ...b.source,
      ids: b.ids.length,
      trained: b.mask.filter((m) => m === 1).length,
      baseline: b.baseline.name,
      rows: bisectTable(b),
    }));
    io.out(
      JSON.stringify({
        sample,
        rows: table,
        perRow,
        ...(values.bundleOut ? { bundle: values.bundleOut } : {}),
        ...(differences ? { reproduces: differences.length === 0, differences } : {}),
      }),
    );
    return code;
  }
  io.out(
    `${sample.file}: sample of ${sample.rows.length} row(s) (asked ${sample.n}, seed ${sample.seed}): rows ${sample.rows.join(", ")}`,
  );
  for (const s of sample.skipped) io.out(`  row ${s.row} skipped: ${s.reason}`);
  for (const line of sampleLines(table)) io.out(line);
  if (values.bundleOut) io.out(`bundle written to ${values.bundleOut}`);
  if (differences)
    io.out(
      differences.length === 0
        ? "reproduces the bundle's table"
        : `differs from the bundle's table:\n  ${differences.join("\n  ")}`,
    );
  return code;
}
