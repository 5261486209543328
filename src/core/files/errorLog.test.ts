import { describe, expect, it } from "vitest";
import { createErrorLog, unlistedNote } from "./errorLog";

describe("errorLog", () => {
  it("lists the first errors and counts them all", () => {
    const log = createErrorLog<number>(2);
    for (const e of [1, 2, 3]) log.add(e);
    expect(log.listed).toEqual([1, 2]);
    expect(log.count).toBe(3);
  });

  it("says how many bad lines, or a table's records, are not listed", () => {
    expect(unlistedNote(5, 5)).toBeUndefined();
    expect(unlistedNote(1005, 1000)).toBe("5 more bad lines not listed");
    expect(unlistedNote(1005, 1000, "record")).toBe("5 more bad records not listed");
  });
});
