/*
 * Bad lines of a file, kept in bounded memory: a file of millions of bad lines keeps the first
 * MAX_LISTED_ERRORS of them, in order, and counts all (docs/format.md "Bounded reading").
 */

/** Bad lines listed per file; the rest are counted. */
export const MAX_LISTED_ERRORS = 1000;

export interface ErrorLog<T> {
  /** The first errors, at most `max`. */
  readonly listed: T[];
  /** Every error added. */
  readonly count: number;
  add(error: T): void;
}

export function createErrorLog<T>(max = MAX_LISTED_ERRORS): ErrorLog<T> {
  const listed: T[] = [];
  let count = 0;
  return {
    listed,
    get count() {
      return count;
    },
    add(error) {
      count += 1;
      if (listed.length < max) listed.push(error);
    },
  };
}

/** "N more bad lines (or records) not listed", or nothing when every one is listed. */
export function unlistedNote(
  count: number,
  listed: number,
  unit: "line" | "record" = "line",
): string | undefined {
  return count > listed ? `${count - listed} more bad ${unit}s not listed` : undefined;
}

/** A bad line as every report names it: `line 3 [reward]: message` (`record 3` in a table). */
export function badLineText(
  e: { readonly line?: unknown; readonly field?: unknown; readonly message?: unknown },
  unit: "line" | "record" = "line",
): string {
  return `${unit} ${e.line}${e.field === undefined ? "" : ` [${e.field}]`}: ${e.message}`;
}
