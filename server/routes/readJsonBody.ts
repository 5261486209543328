import type { Context } from "hono";
import type { z } from "zod";

export type BodyResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Deepest nesting of arrays and objects a request body may have. Real bodies nest a handful of
 * levels (sampling parameters, tool arguments); thousands of levels would overflow the stack when
 * the episode is later serialized (docs/security.md, "Request bodies").
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The nesting depth of a JSON text, or the offset where it first exceeds `limit` (one linear pass,
 * strings skipped, nothing allocated). Run before `JSON.parse`, so no deep value is ever built.
 */
export function jsonNestingBeyond(text: string, limit: number): number | undefined {
  let depth = 0;
  let isInString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isInString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) isInString = false;
    } else if (c === 0x22) isInString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/**
 * Reads a JSON request body and validates it; errors name the field that is wrong. The body's size
 * is capped before this by the `--max-body-bytes` middleware, its nesting here (MAX_BODY_DEPTH).
 */
export async function readJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<BodyResult<z.infer<S>>> {
  const contentType = c.req.header("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/json")) {
    return { ok: false, error: "the request body must be JSON (Content-Type: application/json)" };
  }
  let raw: unknown;
  try {
    const text = await c.req.text();
    const beyond = jsonNestingBeyond(text, MAX_BODY_DEPTH);
    if (beyond !== undefined) {
      return {
        ok: false,
        error: `the request body nests deeper than ${MAX_BODY_DEPTH} levels (at character ${beyond})`,
      };
    }
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `the request body is not valid JSON: ${String(error)}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
    return { ok: false, error: issues.join("; ") };
  }
  return { ok: true, value: parsed.data };
}
