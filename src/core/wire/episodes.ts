import { z } from "zod";
import type { Segment, ToolCall, TrajectoryStatus } from "../trajectory/types";

/** Body of `POST /api/episodes`. */
export const startEpisodeSchema = z
  .object({
    prompt: z.string().min(1, "prompt must not be empty").max(1_000_000),
    system: z.string().max(1_000_000).optional(),
    tools: z.array(z.string().min(1).max(64)).max(64).optional(),
    max_iterations: z.number().int().min(0).max(1_000).optional(),
    sampling_params: z.record(z.string(), z.unknown()).optional(),
    policy: z.string().max(64).optional(),
    mock_replies: z.record(z.string(), z.array(z.string().max(1_000_000)).max(1_000)).optional(),
    enable_thinking: z.boolean().optional(),
    stream: z.boolean().optional(),
  })
  .strict();

export type StartEpisodeRequest = z.infer<typeof startEpisodeSchema>;

/** Body of `POST /api/episodes/:id/human-reply`. */
export const humanReplySchema = z.object({ reply: z.string().max(1_000_000) }).strict();

/** One row of `GET /api/episodes`. */
export interface EpisodeSummary {
  readonly id: string;
  readonly status: TrajectoryStatus;
  readonly createdAt: string;
  readonly prompt: string;
  readonly tokens: number;
  readonly trainableTokens: number;
  readonly turns: number;
  readonly toolCalls: number;
}

/** Server-Sent Events of one episode, in order; `seq` is the SSE id (replayable from 0). */
export type EpisodeEvent =
  | {
      readonly type: "started";
      readonly id: string;
      readonly upstream: string;
      readonly model: string;
    }
  | { readonly type: "segment"; readonly index: number; readonly segment: Segment }
  | {
      readonly type: "delta";
      readonly turn: number;
      readonly text: string;
      readonly tokens: number;
    }
  | { readonly type: "tool_call"; readonly segmentIndex: number; readonly call: ToolCall }
  | {
      readonly type: "tool_result";
      readonly segmentIndex: number;
      readonly callId: string;
      readonly name: string;
      readonly content: string;
      readonly isError: boolean;
    }
  | {
      readonly type: "waiting_human";
      readonly callId: string;
      readonly question: string;
      readonly timeoutMs: number;
      /** When the wait ends (ms since the epoch), so a replayed event still shows the right time. */
      readonly deadline: number;
    }
  | { readonly type: "cutoff"; readonly segmentIndex: number; readonly reason: string }
  | {
      readonly type: "end";
      readonly status: TrajectoryStatus;
      readonly reason?: string;
    };

export type EpisodeEventType = EpisodeEvent["type"];
