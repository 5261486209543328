import { laneNameProblem } from "../../src/core/trajectory/lanes";
import type { ModelInfoWire } from "../../src/core/wire/sglang";
import {
  outputOverInput,
  removeOnSignal,
  removeStaleTemporaries,
  temporaryPathOf,
} from "../files/outputGuard";
import { createFamilyGuard, type UpstreamModel, upstreamModelOf } from "../rescore/familyGuard";
import { type RescoreReport, rescoreFile } from "../rescore/rescoreFile";
import { RESCORED_LANE } from "../rescore/rescoreTrajectory";
import { SglangError, SglangHttpError } from "../sglang/errors";
import { SglangClient } from "../sglang/sglangClient";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";
import type { ParsedArgs, RescoreFlags } from "./commandFlags";
import type { CommandIo } from "./commandIo";

/**
 * One probe of the upstreams before any trajectory (one attempt, short timeouts): what model
 * they serve, or why they cannot be reached (then nothing is rescored).
 */
export async function probe(
  urls: readonly string[],
): Promise<{ ok: true; info: ModelInfoWire | undefined } | { ok: false; error: string }> {
  const once = new SglangClient({
    upstreams: urls,
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 10_000,
    retry: { maxAttempts: 1 },
    health: { intervalMs: 0, reprobeMs: 60_000 },
  });
  try {
    return { ok: true, info: await once.modelInfo() };
  } catch (error) {
    // Reachable, but with no /model_info: the family goes unchecked.
    if (error instanceof SglangHttpError && error.status === 404)
      return { ok: true, info: undefined };
    const why = error instanceof SglangError ? error.message : String(error);
    return { ok: false, error: `cannot reach SGLang at ${urls.join(", ")}: ${why}` };
  } finally {
    await once.close();
  }
}

function positiveInt(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 256 ? n : undefined;
}

function printReport(io: CommandIo, report: RescoreReport, upstream: UpstreamModel): void {
  const unit = report.unit ?? "line";
  for (const k of report.kept) io.out(`  ${unit} ${k.line} kept unchanged: ${k.reason}`);
  const unchecked = report.unchecked.length;
  if (unchecked > 0) {
    io.out(`  family not checked on ${unchecked} trajectory(ies): ${report.unchecked[0]?.reason}`);
  } else if (upstream.isPerRequest) {
    // The simulator answers each request in its ids' family, whatever /model_info names.
    io.out(
      "  family checked: the simulator scores each trajectory in its own ids' family (scripted logprobs, not a model)",
    );
  } else if (upstream.family !== undefined) {
    io.out(
      `  family checked: the upstream serves ${upstream.name}${upstream.family ? ` (${upstream.family})` : ""}`,
    );
  }
}

/** `rollout-lens rescore FILE --sglang URL --out OUT [--lane NAME]`; resolves to the exit code. */
export async function runRescore(
  { values, positionals }: ParsedArgs<RescoreFlags>,
  io: CommandIo,
): Promise<number> {
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) {
    io.err("rescore: give exactly one FILE");
    return 2;
  }
  const lane = values.lane ?? RESCORED_LANE;
  const problem = laneNameProblem(lane);
  if (problem) {
    io.err(`rescore: --lane: ${problem}`);
    return 2;
  }
  const concurrency = positiveInt(values.concurrency, 4);
  if (concurrency === undefined) {
    io.err(`rescore: --concurrency: expected a whole number 1-256, got "${values.concurrency}"`);
    return 2;
  }
  const over = await outputOverInput(values.out, [path]);
  if (over !== undefined) {
    io.err(`rescore: --out: ${over}`);
    return 2;
  }
  for (const stale of await removeStaleTemporaries(values.out)) {
    io.err(`rescore: removed ${stale}, left by an interrupted run`);
  }
  const urls = values.sglang
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const probed = await probe(urls);
  if (!probed.ok) {
    io.err(`rescore: ${probed.error}; nothing was rescored`);
    return 2;
  }
  const catalog = buildTokenizerCatalog("qwen3");
  const names = catalog.list.tokenizers.map((t) => t.name);
  const upstream = upstreamModelOf(probed.info, names);
  const guard = createFamilyGuard(upstream, names, (name) =>
    loadDriftTokenizer(catalog.resolve(name) ?? name),
  );
  const client = new SglangClient({
    upstreams: urls,
    health: { intervalMs: 0, reprobeMs: 60_000 },
  });
  const temporary = temporaryPathOf(values.out);
  const release = removeOnSignal(temporary);
  try {
    const report = await rescoreFile(client, path, values.out, {
      lane,
      concurrency,
      guard,
      force: values.force === true,
      temporary,
    });
    io.out(
      `${path} -> ${values.out}: ${report.rescored} of ${report.trajectories} trajectories rescored (lane ${lane}), ${report.lines} ${report.unit ?? "line"}s`,
    );
    printReport(io, report, upstream);
    return report.kept.length > 0 || report.unchecked.length > 0 ? 1 : 0;
  } catch (error) {
    io.err(`rescore: ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  } finally {
    release();
    await client.close();
  }
}
