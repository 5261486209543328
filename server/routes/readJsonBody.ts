import type { Context } from "hono";
import type { z } from "zod";

export type BodyResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Reads a JSON request body and validates it; errors name the field that is wrong. */
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
    raw = await c.req.json();
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
