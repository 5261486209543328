/**
 * Shared scanning for the `<tool_call>…</tool_call>` formats: think blocks are removed before matching
 * (drafts inside reasoning never run), but every span is mapped back to the ORIGINAL text so the UI can
 * highlight the call where the model wrote it.
 */

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/g;
/** Non-greedy, across newlines; an unclosed `<tool_call>` matches nothing (cut by max_new_tokens). */
const TOOL_CALL_BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

/** One `<tool_call>` block: inner text (outer whitespace dropped) and its [start, end) in the original. */
export interface CallBlock {
  readonly inner: string;
  readonly span: readonly [number, number];
}

interface KeptPiece {
  /** Offset of the piece in the think-stripped text (UTF-16 code units). */
  readonly stripped: number;
  /** Offset of the same piece in the original text (UTF-16 code units). */
  readonly original: number;
  readonly length: number;
}

/** Removes `<think>…</think>` blocks and keeps the map from stripped to original offsets. */
function stripThink(text: string): { stripped: string; pieces: KeptPiece[] } {
  const pieces: KeptPiece[] = [];
  let stripped = "";
  let cursor = 0;
  for (const match of text.matchAll(THINK_BLOCK)) {
    const start = match.index;
    if (start > cursor) {
      pieces.push({ stripped: stripped.length, original: cursor, length: start - cursor });
      stripped += text.slice(cursor, start);
    }
    cursor = start + match[0].length;
  }
  if (cursor < text.length) {
    pieces.push({ stripped: stripped.length, original: cursor, length: text.length - cursor });
    stripped += text.slice(cursor);
  }
  return { stripped, pieces };
}

/** Original offset of the character at stripped offset `at` (which must be inside the stripped text). */
function toOriginal(pieces: readonly KeptPiece[], at: number): number {
  for (const piece of pieces) {
    if (at < piece.stripped + piece.length) return piece.original + (at - piece.stripped);
  }
  throw new Error(`stripped offset ${at} is outside the text`);
}

/** Every closed `<tool_call>` block outside think blocks, in order, with spans in the original text. */
export function findCallBlocks(text: string): CallBlock[] {
  const { stripped, pieces } = stripThink(text);
  const blocks: CallBlock[] = [];
  for (const match of stripped.matchAll(TOOL_CALL_BLOCK)) {
    const start = toOriginal(pieces, match.index);
    // Map the last character, not the end: the exclusive end may sit at a removed think block.
    const end = toOriginal(pieces, match.index + match[0].length - 1) + 1;
    blocks.push({ inner: match[1] ?? "", span: [start, end] });
  }
  return blocks;
}
