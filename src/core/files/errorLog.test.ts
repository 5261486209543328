import { describe, expect, it } from "vitest";
import { badLineText, createErrorLog, unlistedNote } from "./errorLog";

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

  it("names a bad line, its field when known, or a table's record", () => {
    expect(badLineText({ line: 3, message: "invalid JSON" })).toBe("line 3: invalid JSON");
    expect(badLineText({ line: 2, field: "reward", message: "not a number" }, "record")).toBe(
      "record 2 [reward]: not a number",
    );
  });
});
