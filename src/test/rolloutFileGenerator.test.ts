import { describe, expect, it } from "vitest";
import { summarizeLine } from "../core/files/rowSummary";
import { generateLine } from "./rolloutFileGenerator";

describe("generated rollout lines", () => {
  for (const k of [0, 3, 4, 13]) {
    it(`line ${k} reads as a valid rollout-lens/v1 trajectory`, () => {
      const result = summarizeLine(generateLine(k, { tokens: 200 }), k + 1, 0);
      if (result.kind !== "rows") throw new Error(JSON.stringify(result));
      const row = result.rows[0];
      expect(row?.totalTokens).toBe(200);
      expect(row?.id).toBe(`ep-${String(k).padStart(6, "0")}`);
      expect(row?.toolErrors).toBe(k % 7 === 3 ? 1 : 0);
    });
  }
});
