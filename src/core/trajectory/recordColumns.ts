import { isRecord } from "../isRecord";
import type { Trajectory } from "./types";

/*
 * The columns of a text-only record worth showing beside its text (TextRecord): what a table row
 * holds besides the conversation, such as TRL's rewards by function and advantage, a step, a
 * task name or an answer key. The conversation's own texts and anything long or nested are left
 * to the record's JSON.
 */

/** One column as shown: its name and its value as text. */
export interface RecordColumn {
  readonly name: string;
  readonly value: string;
}

/** Longest string value shown as a column (a longer one is text, shown elsewhere or not at all). */
const MAX_TEXT = 120;
/** Most columns listed. */
const MAX_COLUMNS = 32;

function numberText(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(6)));
}

/** An object of numbers (rewards by function) as `name: value` pairs; undefined for others. */
function numbersText(value: Record<string, unknown>): string | undefined {
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  if (!entries.every(([, v]) => typeof v === "number" || v === null)) return undefined;
  return entries
    .map(([k, v]) => `${k}: ${v === null ? "null" : numberText(v as number)}`)
    .join(", ");
}

/** A column's value as text, or undefined when it is not shown as a column. */
function columnText(value: unknown, shown: ReadonlySet<string>): string | undefined {
  if (typeof value === "number") return numberText(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") {
    const isShown = shown.has(value) || value.length > MAX_TEXT || value.trim() === "";
    return isShown ? undefined : value;
  }
  return isRecord(value) ? numbersText(value) : undefined;
}

/**
 * A record's short columns in its own order: numbers (NaN as NaN), booleans, strings up to
 * 120 characters that are not one of the texts shown (`shownTexts`, its messages), and objects
 * of numbers; at most 32.
 */
export function recordColumns(
  metadata: Trajectory["metadata"],
  shownTexts: Iterable<string>,
): RecordColumn[] {
  const shown = new Set(shownTexts);
  const out: RecordColumn[] = [];
  for (const [name, value] of Object.entries(metadata)) {
    const text = columnText(value, shown);
    if (text !== undefined) out.push({ name, value: text });
    if (out.length === MAX_COLUMNS) break;
  }
  return out;
}
