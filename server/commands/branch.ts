import { appendFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { trajectoryIdsAbsentReason } from "../../src/core/formats/idsAbsent";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import {
  chooseTokenizerFor,
  TOKENIZER_REASON_TEXT,
  type TokenizerReason,
} from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import { type ForkEpisodeRequest, forkEpisodeSchema } from "../../src/core/wire/episodes";
import { branchRequests, findFileRow, prefixFor } from "../agent/branches";
import { newEpisodeId } from "../agent/episodeManager";
import type { EpisodeSink } from "../agent/episodeSink";
import { runBranch } from "../agent/runBranch";
import type { RunnerDeps } from "../agent/runEpisode";
import { createSglangModelClient } from "../agent/sglangModelClient";
import { SERVER_DEFAULTS } from "../configDefaults";
import { outputOverInput } from "../files/outputGuard";
import { SglangClient } from "../sglang/sglangClient";
import { type RunningSim, startSim } from "../sim/start";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { loadTokenizer } from "../tokenizers/loadTokenizer";
import { createToolRegistry } from "../tools/registry";
import type { BranchFlags, ParsedArgs } from "./commandFlags";
import type { CommandIo } from "./commandIo";

/** A flag's number when it is written as one; else the string, for the schema to name. */
function numeric(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(value.trim()) ? Number(value) : value;
}

/** The flag each field of the fork request comes from, for the error to name it. */
const FLAG_OF: Readonly<Record<string, string>> = {
  "fork.row": "--row",
  "fork.line": "--line",
  "fork.index": "--index",
  "fork.tool_result": "--tool-result",
  n: "--n",
  max_iterations: "--max-iterations",
  "sampling_params.temperature": "--temperature",
  "sampling_params.max_new_tokens": "--max-new-tokens",
};

/** The fork request the flags stand for, checked by the API's own schema. */
function forkRequest(
  values: BranchFlags,
): { ok: true; body: ForkEpisodeRequest } | { ok: false; error: string } {
  // The API takes sampling parameters as given (SGLang checks them); a flag must be a number.
  const sampling: Record<string, unknown> = {};
  if (values.temperature !== undefined) sampling.temperature = numeric(values.temperature);
  if (values.maxNewTokens !== undefined) sampling.max_new_tokens = numeric(values.maxNewTokens);
  for (const [key, value] of Object.entries(sampling)) {
    if (typeof value !== "number") {
      const field = `sampling_params.${key}`;
      return { ok: false, error: `${FLAG_OF[field]} (${field}): not a number: "${value}"` };
    }
  }
  const raw = {
    fork: {
      file: "f1",
      row: numeric(values.row) ?? 0,
      ...(values.line === undefined ? {} : { line: numeric(values.line) }),
      index: numeric(values.index),
      ...(values.toolResult === undefined ? {} : { tool_result: values.toolResult }),
    },
    n: numeric(values.n),
    ...(Object.keys(sampling).length > 0 ? { sampling_params: sampling } : {}),
    ...(values.maxIterations === undefined
      ? {}
      : { max_iterations: numeric(values.maxIterations) }),
  };
  const parsed = forkEpisodeSchema.safeParse(raw);
  if (parsed.success) return { ok: true, body: parsed.data };
  const issues = parsed.error.issues.map((i) => {
    const field = i.path.join(".") || "(request)";
    const flag = FLAG_OF[field];
    return `${flag ? `${flag} (${field})` : field}: ${i.message}`;
  });
  return { ok: false, error: issues.join("; ") };
}

/** The first token at or after `from` where the branch's ids differ from the parent's. */
export function departure(parent: Trajectory, branch: Trajectory, from: number): string {
  const a = parent.segments.flatMap((s) => [...s.tokenIds]);
  const b = branch.segments.flatMap((s) => [...s.tokenIds]);
  let i = from;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return "same ids as the parent";
  return `departs from the parent at token ${i}`;
}

/** A sink for a branch run outside the server: no subscribers, no human to ask. */
function quietSink(signal: AbortSignal): EpisodeSink {
  return {
    id: newEpisodeId(),
    signal,
    emit: () => {},
    askHuman: () => Promise.reject(new Error("no human to ask on the command line")),
    setSnapshot: () => {},
  };
}

/** A file row's fork to run: the checked request, and where its branches go. */
export interface FileBranchRun {
  readonly path: string;
  readonly body: ForkEpisodeRequest;
  /** `--tokenizer`: else the one rule chooses from the row. */
  readonly tokenizer?: string;
  /** SGLang servers (comma-separated); the simulator when absent. */
  readonly sglang?: string;
  readonly signal: AbortSignal;
  /** Each finished branch, in the order they finish. */
  onBranch(final: Trajectory): Promise<void>;
}

export type FileBranchOutcome =
  | {
      readonly ok: false;
      readonly error: string;
      /** The tokenizer the rule chose, when the row was found. */
      readonly tokenizer?: ReturnType<typeof branchTokenizer>;
    }
  | {
      readonly ok: true;
      readonly parent: Trajectory;
      readonly where: string;
      readonly tokenizer: ReturnType<typeof branchTokenizer>;
      readonly finals: readonly Trajectory[];
    };

/**
 * Forks row `body.fork` of the file at token `body.fork.index` and runs its branches (the API's
 * row lookup, schema, prefix and branch runner): what `rollout-lens branch` and the MCP `branch`
 * tool run. The file is only read; a bad fork is refused before anything reaches SGLang.
 */
export async function branchFileRow(run: FileBranchRun): Promise<FileBranchOutcome> {
  const { path, body } = run;
  const at = resolve(path);
  const found = await findFileRow(
    [{ id: "f1", name: path, origin: "cli", path: at, root: at }],
    body.fork,
  );
  if (!("trajectory" in found)) return { ok: false, error: found.error };
  const parent = found.trajectory;
  const where = `${path} ${found.unit ?? "line"} ${found.line ?? "?"} (trajectory ${parent.id})`;
  // Said before a tokenizer is chosen for ids the row does not have (prefixFor says it too).
  const textOnly = trajectoryIdsAbsentReason(parent);
  if (textOnly !== undefined)
    return { ok: false, error: `${where}: no token ids to fork from: ${textOnly}` };
  const choice = branchTokenizer(parent, run.tokenizer);
  let tokenizer: RunnerDeps["tokenizer"];
  try {
    tokenizer = await loadTokenizer(choice.source);
  } catch (error) {
    const flag = choice.reason === "picked" ? "--tokenizer" : `tokenizer ${choice.name}`;
    return {
      ok: false,
      error: `${flag}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const runnerOf = (client: RunnerDeps["client"]): RunnerDeps => ({
    tokenizer,
    tokenizerName: choice.source,
    client,
    registry: createToolRegistry(),
  });
  // The prefix is checked before anything is started: a bad fork never reaches SGLang.
  const prefix = await prefixFor(
    parent,
    body,
    runnerOf({ upstream: "", model: "", generate: unusable }),
  );
  // The API's 400 reason: it names the field (the index, the tokenizer, the edit).
  if ("error" in prefix)
    return { ok: false, error: `${where}: ${prefix.error}`, tokenizer: choice };
  let sim: RunningSim | undefined;
  const urls = (run.sglang ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  if (urls.length === 0) {
    sim = await startSim({ port: 0 }, { tokenizer: choice.source });
    urls.push(sim.url);
  }
  const sglang = new SglangClient({ upstreams: urls });
  try {
    const client = await createSglangModelClient(sglang, sim ? "simulator" : urls.join(", "));
    const runner = runnerOf(client);
    const finals = await Promise.all(
      branchRequests(parent, body, body.n ?? 1).map(async (episode) => {
        const final = await runBranch(runner, episode, quietSink(run.signal), prefix);
        await run.onBranch(final);
        return final;
      }),
    );
    return { ok: true, parent, where, tokenizer: choice, finals };
  } finally {
    await sglang.close();
    await sim?.close();
  }
}

/** One branch as the command prints it: id, status, tokens, where it leaves the parent. */
export function branchLine(parent: Trajectory, final: Trajectory, from: number): string {
  const tokens = final.segments.reduce((sum, s) => sum + s.tokenIds.length, 0);
  const reason = final.endReason ? ` (${final.endReason})` : "";
  return `${final.id} ${final.status}${reason} ${tokens} tokens, ${departure(parent, final, from)}`;
}

/**
 * `rollout-lens branch FILE --row R --index N --out OUT ...`: the API's file-row fork (same row
 * lookup, schema, prefix and branch runner), its branches appended to OUT; FILE is only read.
 */
export async function runBranchCommand(
  { values, positionals }: ParsedArgs<BranchFlags>,
  io: CommandIo,
): Promise<number> {
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) {
    io.err("branch: give exactly one FILE");
    return 2;
  }
  const over = await outputOverInput(values.out, [path]);
  if (over !== undefined) {
    io.err(`branch: --out: ${over}`);
    return 2;
  }
  if (values.row === undefined && values.line === undefined) {
    io.err(`branch: ${path}: give the row to branch: --row R (0-based) or --line L (1-based)`);
    return 2;
  }
  const request = forkRequest(values);
  if (!request.ok) {
    io.err(`branch: ${path}: ${request.error}`);
    return 2;
  }
  const { body } = request;
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once("SIGINT", onSignal);
  let writing = Promise.resolve();
  try {
    const outcome = await branchFileRow({
      ...{ path, body, signal: abort.signal },
      ...(values.tokenizer === undefined ? {} : { tokenizer: values.tokenizer }),
      ...(values.sglang === undefined ? {} : { sglang: values.sglang }),
      onBranch: async (final) => {
        writing = writing.then(() =>
          appendFile(values.out, `${stringifyJsonLine(writeRolloutLens(final))}\n`, "utf8"),
        );
        await writing;
      },
    });
    const chosen = outcome.tokenizer;
    if (chosen) io.out(`tokenizer: ${chosen.name} (${chosen.why})`);
    if (!outcome.ok) {
      io.err(`branch: ${outcome.error}`);
      return 2;
    }
    for (const final of outcome.finals) io.out(branchLine(outcome.parent, final, body.fork.index));
    const aborted = outcome.finals.filter((f) => f.status === "aborted").length;
    io.out(
      `${outcome.finals.length} branch(es) of ${outcome.where} at token ${body.fork.index} -> ${basename(values.out)}`,
    );
    return aborted > 0 ? 1 : 0;
  } catch (error) {
    io.err(`branch: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/**
 * The tokenizer the branches run with, by the one rule (docs/format.md#which-tokenizer-reads-a-row):
 * `--tokenizer` when given, else the record's name, else the family of its first ids, else qwen3.
 */
export function branchTokenizer(
  parent: Trajectory,
  picked: string | undefined,
): { name: string; source: string; reason: TokenizerReason; why: string } {
  const catalog = buildTokenizerCatalog(SERVER_DEFAULTS.tokenizer);
  const names = catalog.list.tokenizers.map((t) => t.name);
  const choice = chooseTokenizerFor(parent, { picked, names, fallback: catalog.list.default });
  const why =
    choice.reason === "picked" ? "given with --tokenizer" : TOKENIZER_REASON_TEXT[choice.reason];
  return { ...choice, source: catalog.resolve(choice.name) ?? choice.name, why };
}

/** The model client of the early prefix check, which never generates. */
function unusable(): never {
  throw new Error("the fork check does not generate");
}
