/** True for a JSON object (a plain record of fields): not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for a JSON array of numbers (a per-token list of ids or values). */
export function isNumbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((n) => typeof n === "number");
}
