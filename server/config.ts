import { z } from "zod";
import { parseMapSpec } from "../src/core/formats/columnMapping";
import { SERVER_DEFAULTS } from "./configDefaults";

/** Server settings, parsed and validated once at startup from flags. */
export const serverConfigSchema = z.object({
  host: z.string().default(SERVER_DEFAULTS.host),
  port: z.coerce.number().int().min(0).max(65535).default(SERVER_DEFAULTS.port),
  sglang: z.array(z.string().url()).default([]),
  tokenizer: z.string().default(SERVER_DEFAULTS.tokenizer),
  data: z.string().default(SERVER_DEFAULTS.data),
  tools: z.array(z.string()).default([]),
  files: z.array(z.string()).default([]),
  /**
   * `--map SPEC`: the column mapping the browser reads the named files through (records no known
   * producer wrote); kept as the spec, checked here, parsed again where it is used.
   */
  map: z
    .string()
    .optional()
    .superRefine((spec, ctx) => {
      const parsed = spec === undefined ? undefined : parseMapSpec(spec);
      if (parsed && !parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
    }),
  maxEpisodes: z.coerce.number().int().min(1).max(10_000).default(SERVER_DEFAULTS.maxEpisodes),
  /** Access token for every request; generated at startup when binding beyond loopback. */
  token: z.string().min(16, "a token needs at least 16 characters").max(512).optional(),
  /** Demand a token even on loopback (other users of a shared machine can reach 127.0.0.1). */
  requireToken: z.boolean().default(false),
  /** Extra Host header names accepted besides loopback and the bound host (reverse proxies). */
  allowedHosts: z.array(z.string().min(1)).default([]),
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1 << 30)
    .default(SERVER_DEFAULTS.maxBodyBytes),
  /** Open SSE streams at once, all episodes together and per episode. */
  maxSseClients: z.coerce.number().int().min(1).max(100_000).default(SERVER_DEFAULTS.maxSseClients),
  maxSsePerEpisode: z.coerce.number().int().min(1).max(1_000).default(8),
  /** Byte-range reads of served files in flight at once; more are answered 429 with Retry-After. */
  maxRangeReads: z.coerce.number().int().min(1).max(10_000).default(SERVER_DEFAULTS.maxRangeReads),
  /** Per-attempt timeout of one SGLang call (ms): a stalled upstream ends the episode in bounded time. */
  sglangTimeoutMs: z.coerce
    .number()
    .int()
    .min(100)
    .max(86_400_000)
    .default(SERVER_DEFAULTS.sglangTimeoutMs),
  /** Attempts per SGLang call, the first included. */
  sglangAttempts: z.coerce.number().int().min(1).max(100).default(SERVER_DEFAULTS.sglangAttempts),
});

export type ServerConfig = z.infer<typeof serverConfigSchema>;

/** Parses raw flag values (strings from the command line) into a validated config. */
export function parseServerConfig(raw: Record<string, unknown>): ServerConfig {
  const result = serverConfigSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid options:\n  ${issues.join("\n  ")}`);
  }
  return result.data;
}
