import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type BisectBundle, parseBundle } from "../../src/core/bisect/bundle";
import { type KnobName, parseKnobList } from "../../src/core/bisect/knobs";
import {
  checkSampleBundle,
  isSampleBundle,
  type SampleBundle,
} from "../../src/core/bisect/sampleBundle";
import { type BisectRow, bisectTable, tableDifferences } from "../../src/core/bisect/table";
import type { IdsOnly } from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import { findFileRow } from "../agent/branches";
import { bisectRefusal, bisectTargetOf, tokenizerFacts } from "../bisect/bisectTarget";
import { familyVerdicts, type ProbedUpstream } from "../bisect/familyCheck";
import { type BisectUpstreams, rerunBundle, runBisect } from "../bisect/runBisect";
import { outputOverInput } from "../files/outputGuard";
import { refusalText } from "../rescore/familyGuard";
import { SglangClient } from "../sglang/sglangClient";
import { rerunSampleCommand, runSampleCommand } from "./bisectSample";
import type { BisectFlags } from "./bisectSpec";
import type { ParsedArgs } from "./commandFlags";
import type { CommandIo } from "./commandIo";
import { probe } from "./rescore";

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export function wholeNumber(flag: string, text: string, min: number, max: number): Checked<number> {
  const n = Number(text);
  return Number.isInteger(n) && n >= min && n <= max
    ? { ok: true, value: n }
    : { ok: false, error: `${flag}: expected a whole number ${min}-${max}, got "${text}"` };
}

export interface Plan {
  readonly row: number;
  readonly knobs: KnobName[];
  readonly baseline: "sampled" | "reference" | "auto";
  readonly options: BisectBundle["options"];
}

/** The flags as a plan, or the first wrong one. */
function planOf(v: BisectFlags): Checked<Plan> {
  const row = wholeNumber("--row", v.row ?? "0", 0, Number.MAX_SAFE_INTEGER);
  const batch = wholeNumber("--batch-size", v.batchSize, 2, 256);
  const top = wholeNumber("--top-logprobs", v.topLogprobs, 1, 1000);
  const decode = wholeNumber("--decode-max-tokens", v.decodeMaxTokens, 1, 1_000_000);
  if (!row.ok) return row;
  if (!batch.ok) return batch;
  if (!top.ok) return top;
  if (!decode.ok) return decode;
  const defaultKnobs = `temperature,top_p,batch,decode${v.sglangB ? ",upstream" : ""}`;
  const knobs = parseKnobList(v.knobs ?? defaultKnobs);
  if (!knobs.ok) return { ok: false, error: `--knobs: ${knobs.error}` };
  if (!["sampled", "reference", "auto"].includes(v.baseline))
    return {
      ok: false,
      error: `--baseline: expected sampled, reference or auto, got "${v.baseline}"`,
    };
  return {
    ok: true,
    value: {
      row: row.value,
      knobs: knobs.knobs,
      baseline:
        v.baseline === "sampled" ? "sampled" : v.baseline === "reference" ? "reference" : "auto",
      options: {
        batch_size: batch.value,
        top_logprobs: top.value,
        decode_max_tokens: decode.value,
      },
    },
  };
}

const fixed = (x: number) => x.toFixed(5);

/** The table as text lines: one row per knob, its notes under it. */
export function tableLines(rows: readonly BisectRow[]): string[] {
  const head = `${"knob".padEnd(12)} ${"compared".padStart(8)} ${"mean|δ|".padStart(9)} ${"max|δ|".padStart(9)} ${"at".padStart(6)} ${"K3".padStart(9)}  outside [0.9, 1.1]`;
  const lines = [head];
  for (const r of rows) {
    if (r.status === "unchecked") {
      lines.push(`${r.knob.padEnd(12)} unchecked: ${r.reason}`);
      continue;
    }
    if (r.isBaseline) {
      lines.push(`${r.knob.padEnd(12)} the baseline (no sampled logprob recorded): ${r.change}`);
      continue;
    }
    const s = r.stats;
    const pct = `${(100 * s.fractionOutside).toFixed(1)}% (${s.outside})`;
    lines.push(
      `${r.knob.padEnd(12)} ${String(s.compared).padStart(8)} ${fixed(s.meanAbsDelta).padStart(9)} ${fixed(s.maxAbsDelta).padStart(9)} ${String(s.maxAt < 0 ? "-" : s.maxAt).padStart(6)} ${fixed(s.k3).padStart(9)}  ${pct}`,
    );
    lines.push(
      `${"".padEnd(12)} ${r.change}${s.missing > 0 ? `; ${s.missing} trained token(s) missing` : ""}`,
    );
    for (const note of r.notes) lines.push(`${"".padEnd(12)} note: ${note}`);
  }
  return lines;
}

function clientOf(url: string): SglangClient {
  return new SglangClient({ upstreams: [url], health: { intervalMs: 0, reprobeMs: 60_000 } });
}

/** One probe of each upstream (what model it serves): an unreachable one is an error. */
export async function probeAll(
  a: string,
  b: string | undefined,
): Promise<Checked<ProbedUpstream[]>> {
  const probed: ProbedUpstream[] = [];
  for (const url of b === undefined ? [a] : [a, b]) {
    const p = await probe([url]);
    if (!p.ok) return { ok: false, error: p.error };
    probed.push({ url, info: p.info });
  }
  return { ok: true, value: probed };
}

/** Clients for a (and b). */
export function upstreams(a: string, b: string | undefined): BisectUpstreams {
  return {
    a: { url: a, client: clientOf(a) },
    ...(b === undefined ? {} : { b: { url: b, client: clientOf(b) } }),
  };
}

/**
 * The family check of every upstream against the ids: a mismatch refuses the run (exit 2) unless
 * `--force`; an unchecked family is said, and makes the exit status at least 1.
 */
export async function checkFamilies(
  io: CommandIo,
  probed: readonly ProbedUpstream[],
  target: Trajectory | IdsOnly,
  isForced: boolean,
): Promise<Checked<number>> {
  let code = 0;
  for (const { url, verdict } of await familyVerdicts(probed, target)) {
    if (verdict.status === "mismatch" && !isForced)
      return { ok: false, error: `${url}: ${refusalText(verdict, "--force")}` };
    if (verdict.status !== "match") {
      io.err(`bisect: ${url}: ${verdict.message}`);
      code = 1;
    }
  }
  return { ok: true, value: code };
}

export async function closeAll(up: BisectUpstreams): Promise<void> {
  for (const u of [up.a, up.b]) if (u?.client instanceof SglangClient) await u.client.close();
}

/** Reads row R of FILE into a bisect's input (without the knobs), or says why not. */
async function rowInput(path: string, plan: Plan) {
  const at = resolve(path);
  const found = await findFileRow([{ id: "f1", name: path, origin: "cli", path: at, root: at }], {
    file: "f1",
    row: plan.row,
    // The row lookup is the fork's; the fork index is not read by it.
    index: 0,
  });
  if (!("trajectory" in found)) {
    const error = found.error.replace(/^fork: /, "");
    // The row lookup skips bad lines: say where to find them rather than leave "0 rows" alone.
    const hint = /has no row/.test(error)
      ? "; bad lines are not rows (rollout-lens validate FILE names them)"
      : "";
    return { ok: false as const, error: `${error}${hint}` };
  }
  const t = found.trajectory;
  const target = bisectTargetOf(t);
  const refused = bisectRefusal(t, target.mask);
  if (refused !== undefined)
    return { ok: false as const, error: `${path} row ${plan.row}: ${refused}` };
  const source = {
    file: path,
    row: plan.row,
    ...(found.line ? { line: found.line } : {}),
    trajectory_id: t.id,
  };
  return { ok: true as const, trajectory: t, target, source, tokenizer: await tokenizerFacts(t) };
}

/** A bundle file: one row's bundle or a sample's, or an error naming the file and the field. */
async function readBundleFile(path: string): Promise<Checked<BisectBundle | SampleBundle>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return {
      ok: false,
      error: `--bundle: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const parsed = parseBundle(text, path);
  if (parsed.ok) return { ok: true, value: parsed.bundle };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parsed;
  }
  if (!isSampleBundle(value)) return parsed;
  const sample = checkSampleBundle(value, path);
  return sample.ok ? { ok: true, value: sample.bundle } : sample;
}

/** `--sample N [--seed S]`: FILE only, not with `--row` or `--bundle`. */
async function sampleRoute(
  values: BisectFlags,
  path: string,
  plan: Plan,
  io: CommandIo,
): Promise<Checked<number>> {
  if (values.sample === undefined) return { ok: false, error: "--seed: only with --sample N" };
  if (values.row !== undefined) return { ok: false, error: "give --row or --sample, not both" };
  if (values.bundle !== undefined)
    return { ok: false, error: "--sample: a bundle reruns its own rows; give FILE, not --bundle" };
  return runSampleCommand(values, path, plan, io);
}

function exitOf(rows: readonly BisectRow[]): number {
  return rows.some((r) => r.status === "unchecked") ? 1 : 0;
}

/** `rollout-lens bisect FILE --row R --sglang URL ...` or `--bundle FILE`; resolves to the exit code. */
export async function runBisectCommand(
  { values, positionals }: ParsedArgs<BisectFlags>,
  io: CommandIo,
): Promise<number> {
  const fail = (error: string) => {
    io.err(`bisect: ${error}`);
    return 2;
  };
  const plan = planOf(values);
  if (!plan.ok) return fail(plan.error);
  if (values.bundle !== undefined && positionals.length > 0)
    return fail("give FILE or --bundle, not both");
  if (values.bundle === undefined && positionals.length !== 1)
    return fail("give exactly one FILE (or --bundle)");
  if (values.bundleOut !== undefined) {
    const over = await outputOverInput(values.bundleOut, [
      ...positionals,
      ...(values.bundle ? [values.bundle] : []),
    ]);
    if (over !== undefined) return fail(`--bundle-out: ${over}`);
  }
  if (values.sample !== undefined || values.seed !== undefined) {
    const sample = await sampleRoute(values, positionals[0] ?? "", plan.value, io);
    return sample.ok ? sample.value : fail(sample.error);
  }
  let recorded: BisectBundle | undefined;
  let input: Awaited<ReturnType<typeof rowInput>> | undefined;
  if (values.bundle !== undefined) {
    const parsed = await readBundleFile(values.bundle);
    if (!parsed.ok) return fail(parsed.error);
    if ("sample" in parsed.value) {
      const rerun = await rerunSampleCommand(values, parsed.value, io);
      return rerun.ok ? rerun.value : fail(rerun.error);
    }
    recorded = parsed.value;
  } else {
    input = await rowInput(positionals[0] ?? "", plan.value);
    if (!input.ok) return fail(input.error);
  }
  const probed = await probeAll(values.sglang, values.sglangB);
  if (!probed.ok) return fail(`${probed.error}; nothing was rescored`);
  const ids = recorded?.ids ?? (input?.ok ? input.target.ids : []);
  const family = await checkFamilies(
    io,
    probed.value,
    input?.ok ? input.trajectory : { segments: [{ tokenIds: ids }] },
    values.force === true,
  );
  if (!family.ok) return fail(`${family.error}; nothing was rescored`);
  const up = upstreams(values.sglang, values.sglangB);
  try {
    const bundle = recorded
      ? await rerunBundle(recorded, up)
      : input?.ok
        ? await runBisect(
            { ...input.target, source: input.source, tokenizer: input.tokenizer, ...plan.value },
            up,
          )
        : undefined;
    if (bundle === undefined) return fail("nothing to run");
    return Math.max(family.value, await report(io, values, bundle, recorded));
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  } finally {
    await closeAll(up);
  }
}

async function report(
  io: CommandIo,
  values: BisectFlags,
  bundle: BisectBundle,
  recorded: BisectBundle | undefined,
): Promise<number> {
  if (values.bundleOut !== undefined)
    await writeFile(values.bundleOut, `${JSON.stringify(bundle)}\n`);
  const rows = bisectTable(bundle);
  const differences = recorded ? tableDifferences(bisectTable(recorded), rows) : undefined;
  const code = Math.max(exitOf(rows), differences && differences.length > 0 ? 1 : 0);
  const trained = bundle.mask.filter((m) => m === 1).length;
  if (values.json) {
    io.out(
      JSON.stringify({
        source: bundle.source,
        ids: bundle.ids.length,
        trained,
        baseline: bundle.baseline.name,
        rows,
        ...(values.bundleOut ? { bundle: values.bundleOut } : {}),
        ...(differences ? { reproduces: differences.length === 0, differences } : {}),
      }),
    );
    return code;
  }
  const where = bundle.source.file
    ? `${bundle.source.file} row ${bundle.source.row ?? 0}`
    : `episode ${bundle.source.episode ?? "?"}`;
  io.out(
    `${where}: ${bundle.ids.length} ids, ${trained} trained; baseline: ${bundle.baseline.name} logprobs`,
  );
  for (const line of tableLines(rows)) io.out(line);
  if (values.bundleOut) io.out(`bundle written to ${values.bundleOut}`);
  if (differences) {
    io.out(
      differences.length === 0
        ? "reproduces the bundle's table"
        : `differs from the bundle's table:\n  ${differences.join("\n  ")}`,
    );
  }
  return code;
}
