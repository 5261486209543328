import { queryOptions } from "@tanstack/react-query";
import { z } from "zod";
import { getJson } from "./http";

const healthSchema = z.object({
  upstream: z.union([z.string(), z.array(z.string())]),
  isSimulated: z.boolean(),
  model: z.string(),
  tokenizer: z.string(),
  contextLength: z.number().nullable(),
  tools: z.array(z.string()),
  runningEpisodes: z.number(),
});

/** `GET /api/health`: which upstream answers, its model, tokenizer, context and tools. */
export type Health = z.infer<typeof healthSchema>;

/** Upstream URL(s) as one line of text. */
export function upstreamText(health: Health): string {
  return Array.isArray(health.upstream) ? health.upstream.join(", ") : health.upstream;
}

export const healthQueries = {
  all: () => ["health"] as const,
  status: () =>
    queryOptions({
      queryKey: [...healthQueries.all(), "status"] as const,
      queryFn: ({ signal }) => getJson("/api/health", healthSchema, signal),
      // The upstream can go away; a slow poll keeps the badge honest without chatter.
      refetchInterval: 15_000,
    }),
};
