import { z } from "zod";

/** Server settings, parsed and validated once at startup from flags. */
export const serverConfigSchema = z.object({
  host: z.string().default("127.0.0.1"),
  port: z.coerce.number().int().min(0).max(65535).default(5173),
  sglang: z.array(z.string().url()).default([]),
  tokenizer: z.string().default("qwen3"),
  data: z.string().default("./data"),
  tools: z.array(z.string()).default([]),
  files: z.array(z.string()).default([]),
  maxEpisodes: z.coerce.number().int().min(1).max(10_000).default(256),
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
