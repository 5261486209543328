// The command-line interface of every command: names, arguments, options and their defaults, with
// commander. Light on purpose (commander and constants only): `rollout-lens --help` loads this and
// nothing else, and each command's module, with the server or tokenizers, is imported only when
// that command runs. The command modules parse their arguments with these same definitions.
import { Command, CommanderError, Option } from "commander";
import {
  CORRECTION_PARAMS,
  LEGACY_CORRECTIONS,
  optionName,
} from "../../src/core/mismatch/corrections/catalog";
import { SERVER_DEFAULTS } from "../configDefaults";
import { POLICY_NAMES, SIM_DEFAULTS } from "../sim/defaults";
import type { ParsedArgs } from "./commandFlags";
import { type CommandIo, processIo } from "./commandIo";
import { DRIFT_FORMAT_FLAGS, formatChoices, VALIDATE_FORMAT_FLAGS } from "./formatFlags";

/** Exit code of a command line that cannot be run as written (unknown option, bad value). */
export const USAGE_EXIT_CODE = 2;

const INPUTS_HELP =
  "rollout files (JSONL), directories (their .jsonl/.ndjson files, recursively) or quoted globs ('runs/**/*.jsonl')";
const SHARD_HELP =
  "check shard I of N (0-based): a stable 1/N of the files by path hash, or of one file's lines by byte range";
const SCAN_JOBS_HELP =
  "files scanned at once, each whole: the main thread and N-1 worker threads; results in input order";

const VALIDATE_FORMATS = formatChoices(VALIDATE_FORMAT_FLAGS);
const DRIFT_FORMATS = formatChoices(DRIFT_FORMAT_FLAGS);
const DRIFT_MODES = ["roundtrip", "template", "text", "all"];

const MAP_FLAG = "--map <SPEC>";
const MAP_DESCRIPTION =
  "read records no known producer wrote through a column mapping: KEY=COLUMN,... (below)";

/** What `--map` takes, for the `--help` of every command that has it (docs/format.md). */
export const MAP_HELP = `--map SPEC: KEY=COLUMN pairs, comma-separated; the records are read as slime samples.
  full layout:  tokens=COL (required), mask=COL, logprobs=COL, prompt-length=COL, reward=COL
  split layout: prompt=COL, response=COL (both required), logprobs=COL, mask=COL, reward=COL
  logprobs and mask: one per token (full) or per response token (split); prompt-length: the
  prompt's token count when there is no mask. A column name may hold "=" but not ",".
  e.g. --map prompt=prompt_ids,response=completion_ids,logprobs=completion_logprobs,reward=score`;

function repeatable(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The conventions every command shares: usage after an error, errors thrown, not exited on. */
export function conventions(command: Command): Command {
  return command.exitOverride().showHelpAfterError().allowExcessArguments(false);
}

export function option(flags: string, description: string, defaultValue?: string | number): Option {
  const made = new Option(flags, description);
  return defaultValue === undefined ? made : made.default(defaultValue);
}

/** `rollout-lens validate`. */
export function validateSpec(): Command {
  return conventions(new Command("validate"))
    .description("check every line of rollout files; report bad lines by line and field")
    .argument("[FILE...]", INPUTS_HELP)
    .addOption(option("--format <F>", `${VALIDATE_FORMATS.join("|")}`, "auto"))
    .addOption(option("--json", "print one JSON object (docs/format.md)"))
    .addOption(option("--shard <I/N>", SHARD_HELP))
    .addOption(option(MAP_FLAG, MAP_DESCRIPTION))
    .addHelpText(
      "after",
      "\nExit status: 0 every line valid, 1 some line bad, 2 a file unreadable or nothing in it valid." +
        `\n\n${MAP_HELP}`,
    );
}

/** What `drift`'s exit codes mean: for its `--help` and the docs. */
export const DRIFT_EXIT_CODES = `Exit status:
  0  every trajectory was checked and none drifts
  1  every trajectory was checked and some drift
  2  something was not checked: a file cannot be read or has no valid line, a line is bad, a
     trajectory is unchecked (its ids cannot be the tokenizer's), or an option is wrong;
     2 wins over 1 (drift found elsewhere is still printed)`;

/** `rollout-lens drift`. */
export function driftSpec(): Command {
  return conventions(new Command("drift"))
    .description(
      "find retokenization drift: tokens rebuilt from text that differ from the recorded ones",
    )
    .argument("[FILE...]", INPUTS_HELP)
    .addOption(
      option(
        "--tokenizer <NAME|PATH>",
        "a family (qwen3, llama3; optional: docs/templates.md) or a local HF model folder (default: chosen per file from the record's tokenizer/model name, else its first ids' family, else qwen3)",
      ),
    )
    .addOption(option("--format <F>", `${DRIFT_FORMATS.join("|")}`, "auto"))
    .addOption(option("--mode <M>", `${DRIFT_MODES.join("|")}`, "roundtrip"))
    .addOption(option("--json", "print one JSON object (docs/drift.md)"))
    .addOption(option("--jobs <N>", "worker threads (each loads its own tokenizer)", "1"))
    .addOption(option("--shard <I/N>", SHARD_HELP))
    .addOption(option(MAP_FLAG, MAP_DESCRIPTION))
    .addHelpText("after", `\n${DRIFT_EXIT_CODES}\n\n${MAP_HELP}`);
}

/** `rollout-lens rescore`. */
export function rescoreSpec(): Command {
  return conventions(new Command("rescore"))
    .description(
      "score every trajectory's exact ids with SGLang and write the file back with the lane added",
    )
    .argument("<FILE>", "rollout file (JSONL)")
    .requiredOption("--sglang <URL[,URL]>", "SGLang servers (or the simulator) to score with")
    .requiredOption("--out <OUT>", "where to write the file with the lane added")
    .addOption(option("--lane <NAME>", "name of the lane to add", "rescored"))
    .addOption(option("--concurrency <N>", "trajectories rescored at once (1-256)", "4"))
    .addOption(
      option("--force", "rescore even where the upstream's model family does not match the ids"),
    )
    .addHelpText(
      "after",
      "\nEvery line is written: the lane added (format kept, every other field unchanged), blank and bad\n" +
        "lines as they were. OUT is never FILE (nor a link to it). One probe first: an unreachable\n" +
        "upstream stops the run. A trajectory whose ids are not the upstream model's family, or whose\n" +
        "lane holds values outside [-inf, 0] or only nulls, is kept unchanged and named.\n" +
        "Exit status: 0 all rescored and checked, 1 some line kept unchanged or a family not checked,\n" +
        "2 FILE unreadable, OUT an input, or the upstream unreachable.",
    );
}

/** `rollout-lens branch`. */
export function branchSpec(): Command {
  return conventions(new Command("branch"))
    .description(
      "fork a file row at token N and run K branches from exactly its ids 0..N-1 (as POST /api/episodes with fork)",
    )
    .argument("<FILE>", "rollout file (JSONL); only read")
    .addOption(
      option(
        "--row <R>",
        "the row: the R-th trajectory of FILE (0-based, as the file table counts), or of --line",
      ),
    )
    .addOption(option("--line <L>", "1-based line of FILE (--row then counts within the line)"))
    .requiredOption("--index <N>", "token N: the branches start from the parent's ids 0..N-1")
    .addOption(option("--n <K>", "branches to run, each its own seed (at most 64)", "1"))
    .addOption(
      option("--sglang <URL[,URL]>", "SGLang servers or an sgl-router (default: simulator)"),
    )
    .addOption(
      option(
        "--tokenizer <NAME|PATH>",
        `a family (qwen3, llama3; optional: docs/templates.md) or a local HF model folder; must be the row's tokenizer (default: the record's, else its ids' family, else ${SERVER_DEFAULTS.tokenizer})`,
      ),
    )
    .addOption(option("--temperature <T>", "sampling temperature (default: the parent's)"))
    .addOption(option("--max-new-tokens <M>", "tokens per turn (default: the parent's)"))
    .addOption(option("--max-iterations <I>", "tool iterations (default: the parent's)"))
    .addOption(
      option("--tool-result <TEXT>", "replace the tool result of the tool segment starting at N"),
    )
    .requiredOption("--out <OUT>", "file the finished branches are appended to (rollout-lens/v1)")
    .addHelpText(
      "after",
      "\nPrints one line per branch: id, status, tokens, the token where it departs from the parent.\n" +
        "Exit status: 0 all branches finished, 1 some branch aborted, 2 a bad fork or bad input.",
    );
}

/** The corrections `mismatch --correction` replays (docs/mismatch.md), with the old short names. */
export const MISMATCH_CORRECTIONS = [
  ...LEGACY_CORRECTIONS,
  "seq",
  "geo",
  ...Object.keys(CORRECTION_PARAMS).filter((n) => !LEGACY_CORRECTIONS.includes(n)),
];

/** One option per threshold of every correction but verl's five (those are --cap and --bounds). */
function thresholdOptions(): Option[] {
  const out: Option[] = [];
  for (const [name, params] of Object.entries(CORRECTION_PARAMS)) {
    if (LEGACY_CORRECTIONS.includes(name)) continue;
    for (const p of params) {
      out.push(
        option(`${optionName(name, p.key)} <X>`, `${name}: ${p.doc} (default ${p.default})`),
      );
    }
  }
  return out;
}

/** `rollout-lens mismatch`. */
export function mismatchSpec(): Command {
  const command = conventions(new Command("mismatch"))
    .description("training–inference mismatch between two logprob lanes, per trajectory and file")
    .argument("[FILE...]", INPUTS_HELP)
    .addOption(
      option(
        "--lanes <A,B>",
        "lanes to compare, a against b (default: trainer/rescored/... vs sampled)",
      ),
    )
    .addOption(
      option(
        "--correction <NAME[,NAME...]>",
        `corrections to replay, side by side: ${MISMATCH_CORRECTIONS.join("|")}`,
        "token-trunc",
      ),
    )
    .addOption(option("--cap <C>", "truncation cap, and the upper mask bound", "2"))
    .addOption(option("--bounds <LO,HI>", "mask bounds (default: 1/cap,cap)"));
  for (const o of thresholdOptions()) command.addOption(o);
  return command
    .addOption(option("--json", "print one JSON object (docs/mismatch.md)"))
    .addOption(option("--fail-above <X>", "exit 1 when a file's fraction clipped/masked exceeds X"))
    .addOption(option("--jobs <N>", SCAN_JOBS_HELP, "1"))
    .addOption(option("--shard <I/N>", SHARD_HELP))
    .addOption(option(MAP_FLAG, MAP_DESCRIPTION))
    .addHelpText(
      "after",
      "\nThe first of verl's five (token-trunc, token-mask, seq-trunc, seq-mask, geo-mask) named gives the per-trajectory" +
        "\nstatistics and charts (token-trunc when none is); every name is replayed over each file as one batch" +
        "\n(fraction masked/clipped, ESS, rows dropped; rows without an advantage are unchecked where it is needed)." +
        "\n\nExit status: 0 fine, 1 a fraction above --fail-above, 2 a file unreadable, a bad line, no trajectory with the lanes," +
        "\nor a correction left unchecked on some row (it needs an advantage the row neither records nor gets from a group)." +
        `\n\n${MAP_HELP}`,
    );
}

/** `rollout-lens groups`. */
export function groupsSpec(): Command {
  return conventions(new Command("groups"))
    .description(
      "group forensics: per GRPO group or trajectory tree, where members diverge, duplicates, zero variance and why, tokens trained twice",
    )
    .argument("[FILE...]", INPUTS_HELP)
    .addOption(option("--json", "print one JSON object (docs/forest.md)"))
    .addOption(option("--jobs <N>", SCAN_JOBS_HELP, "1"))
    .addOption(
      option(
        "--shard <I/N>",
        "check shard I of N (0-based): a stable 1/N of the files by path hash, or of one file's groups by key hash",
      ),
    )
    .addOption(
      option(
        "--fail-on <WHAT>",
        "exit 1 on these findings: duplicates,zero-variance,multiplicity (comma-separated)",
      ),
    )
    .addOption(
      option(
        "--near-k <K>",
        "near-identical members: the same ids after their first K tokens",
        "32",
      ),
    )
    .addHelpText(
      "after",
      "\nExit status: 0 checked, nothing --fail-on names found; 1 a --fail-on finding; 2 a file unreadable,\na bad line (its trajectories are not checked) or a wrong option; 2 wins over 1.",
    );
}

/** `rollout-lens merge-reports`. */
export function mergeReportsSpec(): Command {
  return conventions(new Command("merge-reports"))
    .description(
      "merge the --json reports of `drift`, `mismatch` or `groups` --shard I/N runs into one report",
    )
    .argument("[REPORT...]", "drift, mismatch or groups --json outputs, one per shard")
    .addOption(
      option("--json", "print the merged report as one JSON object (as the scan's --json)"),
    )
    .addOption(
      option(
        "--fail-above <X>",
        "mismatch reports: exit 1 when a file's fraction clipped/masked exceeds X",
      ),
    )
    .addHelpText(
      "after",
      "\nA file checked by several shards (byte ranges of one file) is merged into one: counts summed,\n" +
        "results, unchecked trajectories and bad lines in line order; mismatch charts merged, a shard's\n" +
        "rows shifted by those before it; a file's groups from its key shards joined in line order.\n" +
        "A trajectory or group reported twice, a missing or repeated shard, shards that chose different\n" +
        "tokenizers or replayed different corrections is an error.\n\n" +
        `${DRIFT_EXIT_CODES.replace("Exit status:", "Exit status (drift's, on the merged report):")}\n` +
        "Mismatch reports: 2 something not compared, 1 a fraction above --fail-above, else 0.\n" +
        "Groups reports: 2 a file unreadable or a bad line, else 0 (--fail-on is the groups command's).",
    );
}

function addServeOptions(command: Command): Command {
  const d = SERVER_DEFAULTS;
  return command
    .addOption(option("--host <ADDR>", "address to bind (beyond loopback needs a token)", d.host))
    .addOption(option("--port <N>", "port to listen on", d.port))
    .addOption(
      option("--sglang <URL[,URL]>", "SGLang servers or an sgl-router (default: simulator)"),
    )
    .addOption(
      option(
        "--tokenizer <NAME|PATH>",
        "a family (qwen3, llama3; optional: docs/templates.md) or a local HF model folder",
        d.tokenizer,
      ),
    )
    .addOption(option("--data <DIR>", "where episodes are stored", d.data))
    .addOption(option("--tools <MODULE>", "a tool module (repeatable)").argParser(repeatable))
    .addOption(option("--max-episodes <N>", "running episodes at once", d.maxEpisodes))
    .addOption(option("--token <T>", "access token (or env ROLLOUT_LENS_TOKEN; docs/security.md)"))
    .addOption(option("--require-token", "demand the token on loopback too"))
    .addOption(
      option("--allowed-host <NAME>", "extra Host header name (repeatable)").argParser(repeatable),
    )
    .addOption(option("--max-body-bytes <N>", "largest request body", d.maxBodyBytes))
    .addOption(option("--max-sse-clients <N>", "open event streams at once", d.maxSseClients))
    .addOption(option("--max-range-reads <N>", "file byte ranges read at once", d.maxRangeReads))
    .addOption(option("--sglang-timeout-ms <MS>", "per-attempt SGLang timeout", d.sglangTimeoutMs))
    .addOption(option("--sglang-attempts <N>", "attempts per SGLang call", d.sglangAttempts))
    .addOption(option("--no-demo", "do not list the demo rollouts when no FILE is named"))
    .addOption(option(MAP_FLAG, `${MAP_DESCRIPTION}; applies to every FILE`))
    .addHelpText("after", `\n${MAP_HELP}`);
}

/** `rollout-lens serve`. */
export function serveSpec(): Command {
  return addServeOptions(
    conventions(new Command("serve"))
      .description("serve the app and its API (the demo rollouts, or FILEs, listed at /files)")
      .argument("[FILE...]", "rollout files to list"),
  );
}

/** `rollout-lens view`. */
export function viewSpec(): Command {
  return addServeOptions(
    conventions(new Command("view"))
      .description("serve FILEs (or a run DIR's step files) and open the browser on them")
      .argument(
        "[FILE...]",
        "rollout files (JSONL, JSON, Parquet); one not written yet is tailed; a directory is a training run (its step files in step order)",
      )
      .addHelpText(
        "after",
        "\nThe browser: the command in env BROWSER (split on whitespace, no shell, URL last), else the system's opener.",
      ),
  ).addOption(option("--no-open", "only print the URL"));
}

/** `rollout-lens mcp`. */
export function mcpSpec(): Command {
  const d = SERVER_DEFAULTS;
  return conventions(new Command("mcp"))
    .description(
      "an MCP server over stdio: coding agents ask token-level questions about FILEs (docs/agents.md)",
    )
    .argument(
      "[FILE...]",
      "rollout files (JSONL, JSON, Parquet) or run directories, as `view` takes them",
    )
    .addOption(
      option(
        "--tokenizer <NAME|PATH>",
        "a family or a local HF model folder (default: chosen per file, as `drift` chooses)",
      ),
    )
    .addOption(
      option("--data <DIR>", "where the server's episodes are (listed as `episodes`)", d.data),
    )
    .addOption(
      option(
        "--sglang <URL[,URL]>",
        "SGLang servers (or `rollout-lens sim`) for the rescore and branch tools (default: none; those tools say so)",
      ),
    )
    .addOption(
      option(
        "--app-url <URL>",
        "the app the answers link to (`rollout-lens view` on the same FILEs)",
        `http://${d.host}:${d.port}`,
      ),
    )
    .addOption(option(MAP_FLAG, `${MAP_DESCRIPTION}; applies to every FILE`))
    .addHelpText(
      "after",
      "\nSpeaks the Model Context Protocol on stdin/stdout (stdout carries nothing else); `serve` mounts\nthe same tools at /mcp. Register it with your agent as the command `rollout-lens mcp FILE...`.",
    );
}

/** `rollout-lens sim`. */
export function simSpec(): Command {
  const d = SIM_DEFAULTS;
  const rate = (flags: string, what: string) => option(flags, `share of /generate calls: ${what}`);
  return conventions(new Command("sim"))
    .description("the SGLang simulator: SGLang's HTTP API with scripted policies and faults")
    .addOption(option("--host <H>", "address to bind", "127.0.0.1"))
    .addOption(option("--port <N>", "port to listen on", "30000"))
    .addOption(option("--policy <P>", POLICY_NAMES.join("|"), d.policy))
    .addOption(
      option(
        "--tokenizer <NAME|PATH>",
        `serve only this family (qwen3, llama3; optional: docs/templates.md) or local HF model folder (default: each request's family from its first ids, among the installed ones, else ${d.tokenizer})`,
      ),
    )
    .addOption(option("--context-length <N>", "context window in tokens", String(d.contextLength)))
    .addOption(option("--seed <N>", "logprob seed when a request sends none", String(d.seed)))
    .addOption(
      option(
        "--logprob-noise <SIGMA>",
        "Gaussian noise (log-odds) on input-scored (rescored) logprobs",
        "0",
      ),
    )
    .addOption(
      option(
        "--logprob-drift-after-tokens <N>",
        "scale input-scored logprobs by 1.25 from token N on",
      ),
    )
    .addOption(
      option(
        "--logit-model",
        "explicit distribution per position: sampled logprobs at the request's temperature, rescored at T = 1, the top_p/top_k kept set returned",
      ),
    )
    .addOption(
      option(
        "--renormalize-kept",
        "with --logit-model: sampled logprobs renormalised over the kept set",
      ),
    )
    .addOption(
      option(
        "--batch-noise <SIGMA>",
        "log-odds noise of SIGMA x log2(batch size) on input-scored logprobs",
        "0",
      ),
    )
    .addOption(
      option(
        "--routed-experts <L,E,K>",
        "answer return_routed_experts: L layers, E experts, top-K per token",
      ),
    )
    .addOption(option("--latency-ms <MS>", "queueing time before the first token", "0"))
    .addOption(option("--token-latency-ms <MS>", "time between decode steps", "0"))
    .addOption(option("--delta-stream", "stream deltas, as --incremental-streaming-output"))
    .addOption(rate("--fault-503 <R>", "503 overload"))
    .addOption(rate("--fault-500 <R>", "500 internal error"))
    .addOption(rate("--fault-drop <R>", "socket dropped"))
    .addOption(rate("--fault-stall <R>", "no answer until the client gives up"))
    .addOption(rate("--fault-malformed <R>", "truncated JSON"))
    .addOption(rate("--fault-abort <R>", "abort before prefill"))
    .addOption(option("--fault-seed <N>", "seed of the fault draws", String(d.faultSeed)));
}

/** The exit code for a commander error: 0 for --help and --version, else the usage code. */
export function exitCodeOfCommanderError(error: CommanderError): number {
  return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
}

/**
 * Parses `args` in-process with a command's definition: its flags and files, or the exit code
 * when parsing ended the command (`--help`: 0 after the help; a usage error: 2 after the usage).
 */
export function parseCommand<Flags>(
  command: Command,
  args: readonly string[],
  io: CommandIo = processIo,
): ParsedArgs<Flags> | number {
  command.configureOutput({
    writeOut: (text) => io.out(text.trimEnd()),
    writeErr: (text) => io.err(text.trimEnd()),
  });
  try {
    command.parse([...args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeOfCommanderError(error);
    throw error;
  }
  return { values: command.opts() as Flags, positionals: command.args };
}
