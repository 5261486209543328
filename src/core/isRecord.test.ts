import { describe, expect, it } from "vitest";
import { isRecord } from "./isRecord";

describe("isRecord", () => {
  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [Object.create(null), true],
    [null, false],
    [undefined, false],
    [[], false],
    [[{ a: 1 }], false],
    ["{}", false],
    [0, false],
  ])("%j is a record: %s", (value, expected) => {
    expect(isRecord(value)).toBe(expected);
  });
});
