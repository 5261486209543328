import Papa from "papaparse";
import { isTextColumn } from "../formats/textTable";

/*
 * Delimited text (`.csv`, `.tsv`): a table a DataFrame's `to_csv` or a W&B table's CSV export
 * wrote, read whole (as a JSON document is) into one record per row, its cells by column name
 * (docs/format.md, "CSV and TSV tables"). papaparse does the reading (quoted cells that
 * span lines, doubled quotes, a byte order mark); the types the text dropped are taken back as
 * far as the text says them: decimal numbers, true/false, an empty cell as null, and Python's
 * `nan`, `inf`, `-inf` as numbers, except in the columns a text table reads as text or as a
 * group's name (textTable.ts isTextColumn), whose cells stay as written. A row whose count of cells is not the header's is an error
 * naming it, never cut or padded to fit.
 */

/** Python's words for the floats JSON has no literal for, as `str(float)` and pandas write them. */
const SPECIAL_NUMBERS: Readonly<Record<string, number>> = {
  nan: Number.NaN,
  NaN: Number.NaN,
  inf: Number.POSITIVE_INFINITY,
  "-inf": Number.NEGATIVE_INFINITY,
  Infinity: Number.POSITIVE_INFINITY,
  "-Infinity": Number.NEGATIVE_INFINITY,
};

function typedCell(field: string, value: unknown): unknown {
  return !isTextColumn(field) && typeof value === "string" && Object.hasOwn(SPECIAL_NUMBERS, value)
    ? SPECIAL_NUMBERS[value]
    : value;
}

/**
 * The rows of a CSV (or, with `kind` "tsv", tab-separated) text as records; throws an error
 * naming the first row that does not parse (row 1 is the first after the header).
 */
export function csvRecords(text: string, kind: "csv" | "tsv"): Record<string, unknown>[] {
  const parsed = Papa.parse<Record<string, unknown>>(text.replace(/^\uFEFF/, ""), {
    header: true,
    // A prompt, an answer or a group id stays text even when it reads as a number ("72", "0012").
    dynamicTyping: (field) => !isTextColumn(String(field)),
    skipEmptyLines: true,
    delimiter: kind === "tsv" ? "\t" : ",",
  });
  const [first] = parsed.errors;
  if (first !== undefined) {
    const where = first.row === undefined ? "" : `row ${first.row + 1} (after the header): `;
    throw new Error(`the ${kind.toUpperCase()} table does not read: ${where}${first.message}`);
  }
  const fields = parsed.meta.fields ?? [];
  if (fields.length === 0) throw new Error(`the ${kind.toUpperCase()} table has no header row`);
  return parsed.data.map((row) => Object.fromEntries(fields.map((f) => [f, typedCell(f, row[f])])));
}
