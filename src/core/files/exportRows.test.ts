import { describe, expect, it } from "vitest";
import { calculatorEpisode } from "../../test/trajectoryBuilders";
import { readRolloutLine } from "../formats/readRolloutLine";
import { EXPORT_FORMATS, exportLine } from "./exportRows";

describe("exportLine", () => {
  const t = calculatorEpisode({ id: "ep42", reward: 1 });
  for (const format of EXPORT_FORMATS) {
    it(`writes a ${format} line that reads back to the same tokens and reward`, () => {
      const line = exportLine(t, format);
      expect(line).not.toContain("\n");
      const back = readRolloutLine(line, 1);
      if (back.kind !== "trajectories") throw new Error(JSON.stringify(back));
      expect(back.format).toBe(format);
      const tokens = (x: typeof t) => x.segments.flatMap((s) => s.tokenIds);
      expect(back.trajectories.map(tokens)).toEqual([tokens(t)]);
      expect(back.trajectories[0]?.reward).toBe(1);
    });
  }
});
