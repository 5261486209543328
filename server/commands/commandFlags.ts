// The flags each command is parsed into (server/commands/spec.ts defines the options): what a
// command's module reads from `ParsedArgs.values`.

/** The flags and files a command was given. */
export interface ParsedArgs<Flags> {
  readonly values: Flags;
  readonly positionals: string[];
}

/** `rollout-lens validate` flags. */
export interface ValidateFlags {
  /** `--map SPEC`: read records of unknown shape through this column mapping. */
  readonly map?: string;
  readonly format: string;
  readonly json?: boolean;
  readonly shard?: string;
}

/** `rollout-lens drift` flags. */
export interface DriftFlags {
  /** `--map SPEC`: read records of unknown shape through this column mapping. */
  readonly map?: string;
  /** Unset: each file's tokenizer is chosen from its first trajectory. */
  readonly tokenizer?: string;
  readonly format: string;
  readonly mode: string;
  readonly json?: boolean;
  readonly jobs: string;
  readonly shard?: string;
}

/** `rollout-lens merge-reports` flags. */
export interface MergeReportsFlags {
  readonly json?: boolean;
  /** Mismatch reports: exit 1 when a merged file's fraction clipped/masked exceeds it. */
  readonly failAbove?: string;
}

/** `rollout-lens rescore` flags. */
export interface RescoreFlags {
  readonly sglang: string;
  readonly out: string;
  readonly lane?: string;
  readonly concurrency?: string;
  readonly force?: boolean;
}

/** `rollout-lens branch` flags; numbers stay strings until the fork request's schema checks them. */
export interface BranchFlags {
  readonly row?: string;
  readonly line?: string;
  readonly index: string;
  readonly n: string;
  readonly sglang?: string;
  readonly tokenizer?: string;
  readonly temperature?: string;
  readonly maxNewTokens?: string;
  readonly maxIterations?: string;
  readonly toolResult?: string;
  readonly out: string;
}

/** `rollout-lens mismatch` flags. */
export interface MismatchFlags {
  /** `--map SPEC`: read records of unknown shape through this column mapping. */
  readonly map?: string;
  readonly lanes?: string;
  readonly correction: string;
  readonly cap: string;
  readonly bounds?: string;
  readonly json?: boolean;
  readonly failAbove?: string;
  readonly jobs: string;
  readonly shard?: string;
  /** `--icepop-alpha X` and the other corrections' thresholds, by commander's camelCase key. */
  readonly [threshold: string]: string | boolean | undefined;
}

/** `rollout-lens groups` flags. */
export interface GroupsFlags {
  readonly json?: boolean;
  readonly jobs: string;
  readonly shard?: string;
  /** Comma-separated: duplicates, zero-variance, multiplicity. */
  readonly failOn?: string;
  readonly nearK?: string;
}

/** `rollout-lens serve` flags (and `view`'s, which adds `open`). */
export interface ServeFlags {
  /** `--map SPEC`: read records of unknown shape through this column mapping. */
  readonly map?: string;
  readonly host?: string;
  readonly port?: string | number;
  readonly sglang?: string;
  readonly tokenizer?: string;
  readonly data?: string;
  readonly tools?: string[];
  readonly maxEpisodes?: string | number;
  readonly token?: string;
  readonly requireToken?: boolean;
  readonly allowedHost?: string[];
  readonly maxBodyBytes?: string | number;
  readonly maxSseClients?: string | number;
  readonly maxRangeReads?: string | number;
  readonly sglangTimeoutMs?: string | number;
  readonly sglangAttempts?: string | number;
  /** False with `--no-demo`. */
  readonly demo?: boolean;
}

/** `rollout-lens view` flags. */
export interface ViewFlags extends ServeFlags {
  /** False with `--no-open`. */
  readonly open?: boolean;
}

/** `rollout-lens mcp` flags. */
export interface McpFlags {
  /** `--map SPEC`: read records of unknown shape through this column mapping. */
  readonly map?: string;
  /** Unset: each file's tokenizer is chosen as `drift` chooses it. */
  readonly tokenizer?: string;
  readonly data: string;
  readonly appUrl: string;
  /** SGLang servers for the rescore and branch tools. */
  readonly sglang?: string;
}

/** `rollout-lens sim` flags; numbers stay strings until the simulator's schema checks them. */
export interface SimFlags {
  readonly host: string;
  readonly port: string;
  readonly policy: string;
  /** Unset: each /generate request is served by its ids' family. */
  readonly tokenizer?: string;
  readonly contextLength: string;
  readonly seed: string;
  readonly logprobNoise?: string;
  readonly logprobDriftAfterTokens?: string;
  readonly logitModel?: boolean;
  readonly renormalizeKept?: boolean;
  readonly batchNoise?: string;
  readonly routedExperts?: string;
  readonly latencyMs: string;
  readonly tokenLatencyMs: string;
  readonly deltaStream?: boolean;
  readonly fault503?: string;
  readonly fault500?: string;
  readonly faultDrop?: string;
  readonly faultStall?: string;
  readonly faultMalformed?: string;
  readonly faultAbort?: string;
  readonly faultSeed: string;
}
