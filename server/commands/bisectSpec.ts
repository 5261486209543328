// `rollout-lens bisect`: its options, with commander only (see spec.ts: --help loads nothing else).
import { Command } from "commander";
import { conventions, option } from "./spec";

/** `rollout-lens bisect` flags; numbers stay strings until the command checks them. */
export interface BisectFlags {
  readonly row: string;
  readonly sglang: string;
  readonly sglangB?: string;
  readonly knobs?: string;
  readonly baseline: string;
  readonly batchSize: string;
  readonly topLogprobs: string;
  readonly decodeMaxTokens: string;
  readonly json?: boolean;
  readonly bundleOut?: string;
  readonly bundle?: string;
  readonly force?: boolean;
}

/** What `bisect`'s exit codes mean: for its `--help` and the docs. */
export const BISECT_EXIT_CODES = `Exit status:
  0  every knob ran (with --bundle: and the table is the bundle's)
  1  some knob is unchecked (the table says why), an upstream's model family is not checked, or
     the rerun's table differs from the bundle's
  2  bad input (FILE, row, bundle, option), an upstream cannot be reached, or its model family
     does not match the ids (without --force); nothing compared`;

/** `rollout-lens bisect`. */
export function bisectSpec(): Command {
  return conventions(new Command("bisect"))
    .description(
      "rescore one row's fixed ids with SGLang, one knob changed at a time, and tabulate |δ| per knob",
    )
    .argument("[FILE]", "rollout file (JSONL); only read (not with --bundle)")
    .addOption(
      option("--row <R>", "the R-th trajectory of FILE (0-based, as the file table counts)", "0"),
    )
    .requiredOption("--sglang <URL>", "SGLang server (or `rollout-lens sim`): upstream a")
    .addOption(
      option("--sglang-b <URL>", "a second upstream for the upstream knob (engine, TP, version)"),
    )
    .addOption(
      option(
        "--knobs <LIST>",
        "comma-separated: temperature,top_p,batch,decode,upstream (default: all but upstream, plus upstream with --sglang-b)",
      ),
    )
    .addOption(
      option(
        "--baseline <B>",
        "sampled|reference|auto: the lane every knob is compared with",
        "auto",
      ),
    )
    .addOption(
      option("--batch-size <N>", "the batch knob: the row plus N-1 co-tenants (2-256)", "8"),
    )
    .addOption(
      option(
        "--top-logprobs <N>",
        "the temperature and top_p knobs: alternatives asked per position (1-1000)",
        "20",
      ),
    )
    .addOption(
      option(
        "--decode-max-tokens <N>",
        "the decode knob: trained tokens scored one call each",
        "256",
      ),
    )
    .addOption(option("--json", "print one JSON object: the table and the bundle's path"))
    .addOption(option("--bundle-out <F>", "write the repro bundle (one JSON) to F"))
    .addOption(option("--bundle <FILE>", "rerun a repro bundle's knobs and compare with its table"))
    .addOption(
      option("--force", "run even where an upstream's model family does not match the ids"),
    )
    .addHelpText("after", `\nThe knobs and the bundle: docs/bisect.md.\n${BISECT_EXIT_CODES}`);
}
