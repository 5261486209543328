import { describe, expect, it } from "vitest";
import { correction } from "../core/mismatch/mismatch";
import { correctionOrDefault, prefsActions, usePrefsStoreForTests } from "./prefsStore";

describe("prefsStore: mismatch preferences", () => {
  it("the heatmap and the mismatch colouring exclude each other", () => {
    const state = () => usePrefsStoreForTests.getState();
    prefsActions.heatmapToggled();
    expect(state().isHeatmap).toBe(true);
    prefsActions.mismatchToggled();
    expect([state().isHeatmap, state().isMismatch]).toEqual([false, true]);
    prefsActions.heatmapToggled();
    expect([state().isHeatmap, state().isMismatch]).toEqual([true, false]);
    prefsActions.mismatchShown();
    prefsActions.mismatchShown();
    expect(state().isMismatch).toBe(true);
  });

  it("keeps the last valid correction when an edit is invalid (lo above hi, zero, NaN)", () => {
    const state = () => usePrefsStoreForTests.getState();
    prefsActions.correctionChanged({ kind: "token-mask", lo: 0.8, hi: 1.25 });
    expect(state().correction).toEqual({ kind: "token-mask", cap: 2, lo: 0.8, hi: 1.25 });
    prefsActions.correctionChanged({ lo: 2 });
    prefsActions.correctionChanged({ cap: 0 });
    prefsActions.correctionChanged({ hi: Number.NaN });
    expect(state().correction).toEqual({ kind: "token-mask", cap: 2, lo: 0.8, hi: 1.25 });
  });

  it("a stale persisted correction falls back to the default; a valid one is kept as is", () => {
    const valid = correction("geo-mask", { hi: 1.5 });
    expect(correctionOrDefault(valid)).toBe(valid);
    expect(correctionOrDefault({ kind: "bogus", cap: 2, lo: 0.5, hi: 2 }).kind).toBe("token-trunc");
    expect(correctionOrDefault(null).kind).toBe("token-trunc");
  });
});
