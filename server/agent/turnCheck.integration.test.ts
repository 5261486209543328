import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkTurnPrefixes } from "../../src/core/drift/prefixCheck";
import { recordedToolNames } from "../../src/core/drift/templateInput";
import type { FamilyId } from "../../src/core/families/types";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { Trajectory } from "../../src/core/trajectory/types";
import { runEpisodeThroughApi, TWO_CALL_CALCULATOR } from "../../test-support/episodeApi";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices } from "../services";
import { toToolSchema } from "../tools/types";

/**
 * Our own live episodes pass the per-turn prefix check: a finished simulator episode keeps its
 * tool schemas in metadata.tools, so re-rendering messages[:k] with the family's template gives
 * exactly the ids the model had at every turn (no template.prompt FORK at token 1).
 */

async function finishedEpisode(id: FamilyId) {
  const data = mkdtempSync(join(tmpdir(), `rl-turns-${id}-`));
  const services = await createServices(parseServerConfig({ data, tokenizer: id }));
  const line = await runEpisodeThroughApi(buildApp(services), TWO_CALL_CALCULATOR);
  const read = readRolloutLine(line, 1);
  if (read.kind !== "trajectories") throw new Error(`episode line unreadable: ${line}`);
  const t = read.trajectories[0] as Trajectory;
  return { services, t };
}

describe.each(["qwen3", "llama3_1"] as const)("the per-turn check of a live %s episode", (id) => {
  it("is CLEAN at every turn, with the tool schemas kept in metadata.tools", async () => {
    const { services, t } = await finishedEpisode(id);
    try {
      expect(t.status).toBe("completed");
      const calculator = services.registry.get("calculator");
      if (!calculator) throw new Error("no calculator tool");
      expect(t.metadata.tools).toEqual([toToolSchema(calculator)]);
      // Readers of names (forks) still get the names.
      expect(recordedToolNames(t)).toEqual(["calculator"]);

      const report = checkTurnPrefixes(t, services.tokenizer);
      expect(report.note).toBeUndefined();
      expect(report.turns.map((k) => k.turn)).toEqual([1, 2, 3]);
      expect(report.turns.map((k) => [k.class, k.rule])).toEqual([
        ["CLEAN", undefined],
        ["CLEAN", undefined],
        ["CLEAN", undefined],
      ]);

      // Names alone (what episodes kept before) break the prompt at token 1.
      const namesOnly = { ...t, metadata: { ...t.metadata, tools: ["calculator"] } };
      const before = checkTurnPrefixes(namesOnly, services.tokenizer).turns[0];
      expect(before?.class).toBe("FORK");
      expect(before?.rule).toBe("template.prompt");
    } finally {
      await services.close();
    }
  }, 120_000);
});
