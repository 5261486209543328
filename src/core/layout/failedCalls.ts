import type { Trajectory } from "../trajectory/types";

/**
 * The tokens [from, to) (token-index space) among [first, end) that spell characters
 * [span[0], span[1]) of `text`, or undefined when those tokens' pieces do not spell `text`
 * exactly (placeholders, or a character split across tokens): then nothing is marked rather
 * than the wrong tokens.
 */
export function tokensOfSpan(
  pieces: readonly string[],
  first: number,
  end: number,
  text: string,
  span: readonly [number, number],
): readonly [number, number] | undefined {
  let offset = 0;
  let from = -1;
  let to = -1;
  for (let t = first; t < end; t++) {
    const piece = pieces[t] ?? "";
    if (!text.startsWith(piece, offset)) return undefined;
    const next = offset + piece.length;
    if (from < 0 && next > span[0]) from = t;
    if (offset < span[1]) to = t + 1;
    offset = next;
  }
  if (offset !== text.length || from < 0) return undefined;
  return [from, to];
}

/**
 * 1 on every token (token-index space) of the markup of a tool call that failed to parse, so the
 * view can mark the model's broken call where it wrote it; undefined when there is none to mark.
 */
export function failedCallTokens(
  trajectory: Trajectory,
  pieces: readonly string[],
  segmentStarts: Int32Array,
): Uint8Array | undefined {
  let marks: Uint8Array | undefined;
  trajectory.segments.forEach((segment, s) => {
    const { text } = segment;
    if (text === undefined) return;
    for (const call of segment.toolCalls ?? []) {
      if (call.error === undefined) continue;
      const first = segmentStarts[s] ?? 0;
      const range = tokensOfSpan(pieces, first, segmentStarts[s + 1] ?? first, text, call.span);
      if (!range) continue;
      marks ??= new Uint8Array(pieces.length);
      marks.fill(1, range[0], range[1]);
    }
  });
  return marks;
}
