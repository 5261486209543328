// The server's defaults, in a module of their own (no zod) so `--help` can show them without
// loading the config schema that applies them.

/** Defaults of the `serve`/`view` flags, applied by `serverConfigSchema`. */
export const SERVER_DEFAULTS = {
  host: "127.0.0.1",
  port: 5173,
  tokenizer: "qwen3",
  data: "./data",
  maxEpisodes: 256,
  maxBodyBytes: 2 * 1024 * 1024,
  maxSseClients: 256,
  maxRangeReads: 16,
  sglangTimeoutMs: 600_000,
  sglangAttempts: 6,
} as const;
