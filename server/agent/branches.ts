import { randomInt } from "node:crypto";
import { recordedToolNames } from "../../src/core/drift/templateInput";
import { trajectoryIdsAbsentReason } from "../../src/core/formats/idsAbsent";
import { type ForkedPrefix, forkPrefix } from "../../src/core/tito/fork";
import { chooseTokenizerFor, type TokenizerChoice } from "../../src/core/tokenizer/chooseTokenizer";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import type { Trajectory } from "../../src/core/trajectory/types";
import type {
  ForkEpisodeRequest,
  ForkSpec,
  StartEpisodeRequest,
} from "../../src/core/wire/episodes";
import { mappingOf, type RegisteredFile, servedPath } from "../files/fileRegistry";
import { readRecords } from "../files/readLines";
import { findTrajectory } from "../store/findTrajectory";
import { OFF_THREAD_CHARS } from "../tokenizers/offThreadEncoder";
import type { EpisodeManager } from "./episodeManager";
import { runBranch } from "./runBranch";
import type { RunnerDeps } from "./runEpisode";

/** The file row a fork read: the file's id, its path as listed (below its run directory), the line. */
export interface ForkSource {
  readonly file: string;
  readonly path: string;
  readonly line: number;
}

export type BranchOutcome =
  | {
      readonly ok: true;
      readonly ids: readonly string[];
      readonly tokenizer: TokenizerChoice;
      readonly source?: ForkSource;
    }
  | { readonly ok: false; readonly status: 400 | 404; readonly error: string };

export interface BranchDeps {
  readonly manager: EpisodeManager;
  readonly runner: RunnerDeps;
  /**
   * The runner of a catalog tokenizer (rejects other names): a branch of an episode that ran on
   * another tokenizer than the server's goes on in that tokenizer's family.
   */
  readonly runnerFor?: (name: string) => Promise<RunnerDeps>;
  /** A finished episode of the data file, as its stored rollout-lens/v1 object. */
  readonly findStored: (id: string) => Promise<unknown | undefined>;
  /** The files the server may read (`/api/files`); a file row is read, never written. */
  readonly files: readonly RegisteredFile[];
  /** The catalog's names and default: what the tokenizer rule chooses among. */
  readonly tokenizers?: { readonly names: readonly string[]; readonly fallback: string };
}

/** The parent (with its 1-based line when it is a file row), or why there is none. */
export type Found =
  | {
      readonly trajectory: Trajectory;
      readonly line?: number;
      readonly source?: ForkSource;
      /** "record" when the row is a table's or document's: `line` is its record's number. */
      readonly unit?: "record";
    }
  | { readonly status: 400 | 404; error: string };

async function findEpisode(deps: BranchDeps, id: string): Promise<Found> {
  const liveTrajectory = (live: string) => deps.manager.trajectory(live);
  const found = await findTrajectory({ liveTrajectory, findStored: deps.findStored }, id);
  if (found.kind === "unknown") return { status: 404, error: `fork: no episode "${id}"` };
  if (found.kind === "unreadable") {
    return { status: 400, error: `fork: episode "${id}" is stored but cannot be read back` };
  }
  return { trajectory: found.trajectory };
}

/** The file row: the row-th trajectory of the file, or of line `line` when it is given. */
export async function findFileRow(
  files: readonly RegisteredFile[],
  spec: ForkSpec,
): Promise<Found> {
  const file = files.find((f) => f.id === spec.file);
  if (!file) return { status: 404, error: `fork: no file "${spec.file}"` };
  const row = spec.row ?? 0;
  let seen = 0;
  // A table's or document's records are numbered as lines are: `record L`, not `line L`.
  let place = "line";
  try {
    const reading = { mapping: mappingOf(file), fixFormat: false, name: file.name };
    for await (const read of readRecords(await servedPath(file), reading)) {
      const { lineNo, result } = read;
      if (read.isRecord) place = "record";
      if (spec.line !== undefined && lineNo !== spec.line) continue;
      if (result.kind === "error") {
        if (spec.line !== undefined) {
          const field = result.error.field ? ` field ${result.error.field}:` : "";
          return {
            status: 400,
            error: `fork: ${file.name} ${place} ${lineNo}:${field} ${result.error.message}`,
          };
        }
        continue;
      }
      if (result.kind !== "trajectories") continue;
      const at = row - seen;
      if (at < result.trajectories.length) {
        const trajectory = result.trajectories[at];
        if (trajectory) {
          return {
            trajectory,
            line: lineNo,
            source: { file: file.id, path: file.name, line: lineNo },
            ...(read.isRecord ? { unit: "record" as const } : {}),
          };
        }
      }
      seen += result.trajectories.length;
      if (spec.line !== undefined) break;
    }
  } catch (error) {
    return { status: 400, error: `fork: ${file.name} cannot be read: ${String(error)}` };
  }
  const where = spec.line === undefined ? "" : ` on ${place} ${spec.line}`;
  return { status: 400, error: `fork: ${file.name} has no row ${row}${where} (${seen} rows)` };
}

function metadataValue<T>(t: Trajectory, key: string, is: (v: unknown) => v is T): T | undefined {
  const value = t.metadata[key];
  return is(value) ? value : undefined;
}

const isInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";

/** The parent's `enable_thinking` unless the fork request sets it (the edit is templated with it). */
export function thinkingOf(parent: Trajectory, body: ForkEpisodeRequest): boolean | undefined {
  return body.enable_thinking ?? metadataValue(parent, "enable_thinking", isBoolean);
}

/**
 * The episode request of each branch: the parent's tools, iteration limit and sampling parameters
 * unless the fork request sets them, and (for n > 1) seeds base, base + 1, … so the branches differ.
 */
export function branchRequests(
  parent: Trajectory,
  body: ForkEpisodeRequest,
  n: number,
  randomSeed: () => number = () => randomInt(0, 2 ** 31 - n),
): StartEpisodeRequest[] {
  const { fork: _fork, n: _n, ...settings } = body;
  const { custom_params: _c, ...parentSampling } = parent.samplingParams ?? {};
  const sampling = { ...parentSampling, ...settings.sampling_params };
  const given = sampling.sampling_seed;
  const base =
    typeof given === "number" && Number.isInteger(given) ? given : n > 1 ? randomSeed() : undefined;
  const prompt =
    parent.messages?.find((m) => m.role === "user")?.content || `branch of ${parent.id}`;
  const tools = settings.tools ?? recordedToolNames(parent);
  const maxIterations = settings.max_iterations ?? metadataValue(parent, "max_iterations", isInt);
  const policy = settings.policy ?? metadataValue(parent, "policy", isString);
  const thinking = thinkingOf(parent, body);
  const parser = settings.tool_call_parser ?? metadataValue(parent, "tool_call_parser", isString);
  return Array.from({ length: n }, (_, i) => ({
    ...settings,
    ...(parser === undefined ? {} : { tool_call_parser: parser }),
    prompt,
    ...(tools ? { tools } : {}),
    ...(maxIterations === undefined ? {} : { max_iterations: maxIterations }),
    ...(policy === undefined ? {} : { policy }),
    ...(thinking === undefined ? {} : { enable_thinking: thinking }),
    sampling_params: {
      ...sampling,
      ...(base === undefined ? {} : { sampling_seed: base + i }),
    },
  }));
}

/**
 * The fork's prefix, or the 400 that says why there is none. An edited tool result as long as
 * OFF_THREAD_CHARS is encoded off the event loop (`encodeOffThread`, as a live episode's is):
 * forkPrefix runs once to learn the long texts it encodes, then again with their ids.
 */
export async function prefixFor(
  parent: Trajectory,
  body: ForkEpisodeRequest,
  runner: RunnerDeps,
): Promise<ForkedPrefix | { readonly error: string }> {
  // A text-only row (TRL's, verifiers', verl's decoded dump) has no ids to continue from.
  const textOnly = trajectoryIdsAbsentReason(parent);
  if (textOnly !== undefined) return { error: `fork: no token ids to fork from: ${textOnly}` };
  const edit = body.fork.tool_result;
  const results = edit === undefined ? [] : typeof edit === "string" ? [edit] : edit;
  const thinking = thinkingOf(parent, body);
  const build = (tokenizer: Tokenizer) => {
    const forked = forkPrefix(parent, body.fork.index, {
      tokenizerName: runner.tokenizerName,
      tokenizer,
      ...(edit === undefined ? {} : { edit: { toolResults: results } }),
      ...(thinking === undefined ? {} : { enableThinking: thinking }),
    });
    return forked.ok ? forked.prefix : { error: `fork: ${forked.error}` };
  };
  const base = runner.tokenizer;
  const encodeOffThread = runner.encodeOffThread;
  const editChars = results.reduce((sum, r) => sum + r.length, 0);
  if (!encodeOffThread || editChars < OFF_THREAD_CHARS) return build(base);
  const long = new Map<string, number[]>();
  build({
    ...base,
    encode: (text) => {
      if (text.length < OFF_THREAD_CHARS) return base.encode(text);
      long.set(text, []); // a stand-in: this first pass only learns which texts are long
      return [];
    },
  });
  for (const text of long.keys()) long.set(text, await encodeOffThread(runner.tokenizerName, text));
  return build({ ...base, encode: (text) => long.get(text) ?? base.encode(text) });
}

/**
 * Starts the branches of one fork request: finds the parent (an episode, or a file row that is
 * only read), builds the prefix once, and starts n episodes from copies of it. All or none start
 * (TooManyEpisodesError from the manager when they do not fit under the cap).
 */
export async function startBranches(
  deps: BranchDeps,
  body: ForkEpisodeRequest,
): Promise<BranchOutcome> {
  const found =
    body.fork.episode !== undefined
      ? await findEpisode(deps, body.fork.episode)
      : await findFileRow(deps.files, body.fork);
  if (!("trajectory" in found)) return { ok: false, status: found.status, error: found.error };
  // The one tokenizer rule (docs/format.md#which-tokenizer-reads-a-row): the record's name, the
  // family of its ids, the server's tokenizer. A name the catalog lacks keeps the server's, and
  // forkPrefix says if the ids misfit.
  const choice = chooseTokenizerFor(found.trajectory, {
    picked: undefined,
    names: deps.tokenizers?.names ?? [deps.runner.tokenizerName],
    fallback: deps.tokenizers?.fallback ?? deps.runner.tokenizerName,
  });
  const runner =
    deps.runnerFor === undefined
      ? deps.runner
      : await deps.runnerFor(choice.name).catch(() => deps.runner);
  const prefix = await prefixFor(found.trajectory, body, runner);
  if ("error" in prefix) return { ok: false, status: 400, error: prefix.error };
  const requests = branchRequests(found.trajectory, body, body.n ?? 1);
  const ids = deps.manager.startMany(
    requests.map((request) => ({
      request,
      run: (sink) => runBranch(runner, request, sink, prefix),
    })),
  );
  return { ok: true, ids, tokenizer: choice, ...(found.source ? { source: found.source } : {}) };
}
