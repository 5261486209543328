/**
 * JSON lines as Python writes them: `json.dumps` emits bare `NaN`, `Infinity` and `-Infinity`,
 * which `JSON.parse` rejects. Parsing tries `JSON.parse` first (fast path, almost every line) and
 * only rewrites those words outside strings when it fails.
 */

// A string no real record holds: the rewrite turns each bare word into it, the reviver turns it back.
const SENTINEL_PREFIX = "\u0000rollout-lens:";
const SENTINEL_JSON = "\\u0000rollout-lens:";
const SPECIAL: Readonly<Record<string, number>> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  "-Infinity": Number.NEGATIVE_INFINITY,
};

export type JsonLineParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

/** Parses one JSON text, accepting Python's bare NaN / Infinity / -Infinity outside strings. */
export function parseJsonLine(line: string): JsonLineParse {
  // A UTF-8 byte order mark (an editor's, at a file's start) is not part of the JSON.
  const text = line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const rewritten = rewriteSpecialNumbers(text);
    if (rewritten === undefined) return { ok: false, message: errorMessage(error, text) };
    try {
      return { ok: true, value: JSON.parse(rewritten, revive) };
    } catch (again) {
      // The first error's positions refer to the text the user has, not to the rewrite; the
      // rewrite's error says whether the text ends open (past the bare words the first stops at).
      const cut = endsOpen(again instanceof Error ? again.message : "", rewritten);
      return { ok: false, message: errorMessage(error, text, cut) };
    }
  }
}

/** Said of a line whose JSON value is still open where the text ends. */
export const CUT_SHORT_HINT =
  "the line ends inside its JSON value, so it was cut short (a writer killed mid-line, a partial copy)";

function errorMessage(error: unknown, text: string, cut?: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  const isCut = cut ?? endsOpen(message, text);
  return `invalid JSON: ${message}${isCut ? `; ${CUT_SHORT_HINT}` : ""}`;
}

/**
 * True when JSON.parse failed because the text ended, not at a wrong character inside it:
 * V8 says "Unexpected end of JSON input", "Unterminated string", or names the position of the
 * text's end (`at position N`, N its trimmed length).
 */
function endsOpen(message: string, text: string): boolean {
  if (/end of JSON input|Unterminated string/.test(message)) return text.trim().length > 0;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length && text.trim().length > 0;
}

function revive(_key: string, value: unknown): unknown {
  if (typeof value === "string" && value.startsWith(SENTINEL_PREFIX)) {
    return SPECIAL[value.slice(SENTINEL_PREFIX.length)] ?? value;
  }
  return value;
}

/** Replaces bare special-number words outside strings; undefined when there is none to replace. */
function rewriteSpecialNumbers(text: string): string | undefined {
  if (text.includes(SENTINEL_JSON)) return undefined;
  const parts: string[] = [];
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    for (const word of ["-Infinity", "Infinity", "NaN"]) {
      if (text.startsWith(word, i)) {
        parts.push(text.slice(from, i), `"${SENTINEL_JSON}${word}"`);
        i += word.length - 1;
        from = i + 1;
        break;
      }
    }
  }
  if (parts.length === 0) return undefined;
  parts.push(text.slice(from));
  return parts.join("");
}

/** Serializes a line object the way Python writes it: non-finite numbers as bare words, -0 as -0.0. */
export function stringifyJsonLine(value: unknown): string {
  const json = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) {
      return `${SENTINEL_PREFIX}${Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity"}`;
    }
    // JSON.stringify writes -0 as 0; Python writes -0.0, and logprobs of exactly -0.0 are common.
    if (Object.is(v, -0)) return `${SENTINEL_PREFIX}-0.0`;
    return v;
  });
  return json.replace(/"\\u0000rollout-lens:(NaN|Infinity|-Infinity|-0\.0)"/g, "$1");
}
