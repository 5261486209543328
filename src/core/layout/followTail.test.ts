import { describe, expect, it } from "vitest";
import { isAtEnd } from "./followTail";

describe("isAtEnd", () => {
  it.each([
    ["content shorter than the view", 0, 500, 300, true],
    ["scrolled to the very end", 1500, 500, 2000, true],
    ["within the slack", 1460, 500, 2000, true],
    ["just past the slack", 1451, 500, 2000, false],
    ["scrolled up", 200, 500, 2000, false],
    ["fractional scroll at the end (zoomed page)", 1499.5, 500, 2000, true],
  ])("%s", (_label, top, client, height, expected) => {
    expect(isAtEnd(top, client, height)).toBe(expected);
  });
});
