import { z } from "zod";
import type { Trajectory } from "../trajectory/types";
import type { FormatAdapter, ReadContext, ReadResult } from "./types";
import { anyNumber, remainder, zodFieldError } from "./wireSchemas";

const verlSchema = z.looseObject({
  input: z.string(),
  output: z.string(),
  score: anyNumber,
  step: z.int().optional(),
});

/**
 * Reads one verl rollout dump line (docs/format.md). verl stores decoded text only, so the
 * trajectory has no segments until a tokenizer is chosen; `input`/`output` (and every other key)
 * stay verbatim in metadata, which is where a retokenizer picks them up.
 */
export function readVerl(
  value: Readonly<Record<string, unknown>>,
  context: ReadContext,
): ReadResult {
  const parsed = verlSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: zodFieldError(parsed.error) };
  const t: Trajectory = {
    id: `L${context.line}`,
    source: { kind: "file", path: context.path, line: context.line, row: 0 },
    format: "verl",
    status: "completed",
    reward: parsed.data.score,
    segments: [],
    metadata: remainder(parsed.data, new Set(["score"])),
  };
  return { ok: true, trajectories: [t] };
}

/** Writes a text-only trajectory back as a verl dump line (`score` from the reward). */
export function writeVerl(t: Trajectory): Record<string, unknown> {
  return { ...t.metadata, score: t.reward ?? null };
}

export const verlAdapter: FormatAdapter = {
  id: "verl",
  detect: (v) => typeof v.input === "string" && typeof v.output === "string" && "score" in v,
  read: readVerl,
};
