import type { z } from "zod";

/** A failed API call: the HTTP status (0 = no response) and the server's error message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

async function errorOf(method: string, url: string, res: Response): Promise<ApiError> {
  let detail = res.statusText;
  try {
    const body: unknown = await res.json();
    if (typeof body === "object" && body !== null && "error" in body) detail = String(body.error);
  } catch {
    // Not JSON: the status text is all there is.
  }
  return new ApiError(res.status, `${method} ${url}: ${res.status} ${detail}`);
}

async function send(method: string, url: string, body?: unknown, signal?: AbortSignal) {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      signal,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, `${method} ${url}: ${error instanceof Error ? error.message : error}`);
  }
  if (!res.ok) throw await errorOf(method, url, res);
  return res;
}

function parse<T>(schema: z.ZodType<T>, url: string, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "(body)";
  throw new ApiError(200, `${url}: unexpected reply, field ${field}: ${issue?.message}`);
}

/** GET `url` and validate the JSON reply with `schema`. */
export async function getJson<T>(url: string, schema: z.ZodType<T>, signal?: AbortSignal) {
  const res = await send("GET", url, undefined, signal);
  return parse(schema, url, await res.json());
}

/** GET `url` and return the reply's text unparsed (for records the format adapters read). */
export async function getText(url: string, signal?: AbortSignal): Promise<string> {
  return (await send("GET", url, undefined, signal)).text();
}

/** POST `body` as JSON to `url` and validate the JSON reply with `schema`. */
export async function postJson<T>(url: string, body: unknown, schema: z.ZodType<T>) {
  const res = await send("POST", url, body);
  return parse(schema, url, await res.json());
}
