import type { GenerateCall, Segment, SegmentKind, Trajectory } from "../core/trajectory/types";

/** A segment of `kind` with the mask its kind implies and the given (or null) logprobs. */
export function segment(
  kind: SegmentKind,
  tokenIds: readonly number[],
  options: Partial<Omit<Segment, "kind" | "tokenIds">> = {},
): Segment {
  const mask: 0 | 1 = kind === "model" ? 1 : 0;
  return {
    kind,
    turn: options.turn ?? 0,
    tokenIds,
    lossMask: options.lossMask ?? tokenIds.map(() => mask),
    logprobs:
      options.logprobs ?? tokenIds.map((_, k) => (kind === "model" ? -0.1 * (k + 1) : null)),
    ...options,
  };
}

export const promptSegment = (ids: readonly number[], options: Partial<Segment> = {}): Segment =>
  segment("prompt", ids, { turn: 0, ...options });
export const modelSegment = (
  ids: readonly number[],
  turn: number,
  options: Partial<Segment> = {},
): Segment => segment("model", ids, { turn, ...options });
export const toolSegment = (
  ids: readonly number[],
  turn: number,
  options: Partial<Segment> = {},
): Segment => segment("tool", ids, { turn, ...options });

/** A trajectory over `segments` with neutral defaults; override any field. */
export function trajectory(
  segments: readonly Segment[],
  overrides: Partial<Trajectory> = {},
): Trajectory {
  return {
    id: "t1",
    source: { kind: "live" },
    format: "rollout-lens/v1",
    status: "completed",
    segments,
    metadata: {},
    ...overrides,
  };
}

/** The 33-token calculator episode of docs/format.md: prompt 13, model 4, tool 12, model 4. */
export function calculatorEpisode(overrides: Partial<Trajectory> = {}): Trajectory {
  const calls: GenerateCall[] = [
    { rid: "ep42-t0", inputLen: 13, outputLen: 4, finishReason: { type: "stop", matched: 151645 } },
    { rid: "ep42-t1", inputLen: 29, outputLen: 4, finishReason: { type: "stop", matched: 151645 } },
  ];
  return trajectory(
    [
      promptSegment([151644, 872, 198, 16, 20, 9, 22, 30, 151645, 198, 151644, 77091, 198]),
      modelSegment([151657, 5513, 151658, 151645], 1),
      toolSegment([198, 151644, 872, 198, 16, 15, 20, 151645, 198, 151644, 77091, 198], 1),
      modelSegment([16, 15, 20, 151645], 2),
    ],
    { calls, ...overrides },
  );
}
