/**
 * JSON as Python's `json.dumps` spaces it by default (`", "` between items, `": "` after keys, no
 * indentation): how the Llama 3.1 and DeepSeek formats write tool arguments, and how models trained
 * on them write them back. Non-ASCII is kept as is (`ensure_ascii=False`).
 */
export function pythonJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined,
  );
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(", ")}}`;
}
