import { describe, expect, it } from "vitest";
import { TokenAnchor, tokenPosition } from "./tokenAnchor";

describe("TokenAnchor", () => {
  it("holds the deep link's token until the reader scrolls", () => {
    const anchor = new TokenAnchor(900);
    expect(anchor.token).toBe(900);
    anchor.release();
    expect(anchor.token).toBeUndefined();
  });

  it("is re-pinned by the view's own jumps", () => {
    const anchor = new TokenAnchor();
    expect(anchor.token).toBeUndefined();
    anchor.pin(12);
    expect(anchor.token).toBe(12);
    anchor.pin(40);
    expect(anchor.token).toBe(40);
  });

  it("is released by the keys that scroll the list, not by others", () => {
    for (const key of ["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]) {
      const anchor = new TokenAnchor(5);
      anchor.keyPressed(key);
      expect(anchor.token, key).toBeUndefined();
    }
    for (const key of ["ArrowRight", "ArrowLeft", "b", "Shift", "Enter"]) {
      const anchor = new TokenAnchor(5);
      anchor.keyPressed(key);
      expect(anchor.token, key).toBe(5);
    }
  });
});

describe("tokenPosition", () => {
  it("keeps positions inside the trajectory only", () => {
    expect(tokenPosition(0, 10)).toBe(0);
    expect(tokenPosition(9, 10)).toBe(9);
    expect(tokenPosition(10, 10)).toBeUndefined();
    expect(tokenPosition(-1, 10)).toBeUndefined();
    expect(tokenPosition(1.5, 10)).toBeUndefined();
    expect(tokenPosition(undefined, 10)).toBeUndefined();
  });
});
