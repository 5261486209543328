import { describe, expect, it } from "vitest";
import { FORMAT_IDS } from "../../src/core/formats/types";
import {
  DRIFT_FORMAT_FLAGS,
  formatChoices,
  TEXT_ONLY_FORMATS,
  VALIDATE_FORMAT_FLAGS,
} from "./formatFlags";
import { driftSpec, validateSpec } from "./spec";

function formatHelp(command: ReturnType<typeof validateSpec>): string | undefined {
  return command.options.find((o) => o.long === "--format")?.description;
}

describe("the --format tables, built from FORMAT_IDS", () => {
  it("validate accepts every format the core reads, by full id and by short name", () => {
    for (const id of FORMAT_IDS) {
      expect(VALIDATE_FORMAT_FLAGS[id]).toBe(id);
      expect(VALIDATE_FORMAT_FLAGS[id.split("/")[0] ?? id]).toBe(id);
    }
    expect(Object.hasOwn(VALIDATE_FORMAT_FLAGS, "auto")).toBe(true);
    expect(VALIDATE_FORMAT_FLAGS.auto).toBeUndefined();
  });

  it("drift accepts every format with token ids and no text-only one", () => {
    for (const id of FORMAT_IDS) {
      expect(DRIFT_FORMAT_FLAGS[id]).toBe(TEXT_ONLY_FORMATS.includes(id) ? undefined : id);
    }
    expect(Object.hasOwn(DRIFT_FORMAT_FLAGS, "verl")).toBe(false);
  });

  it("--help lists auto and each format's short name, once", () => {
    expect(formatHelp(validateSpec())).toBe(formatChoices(VALIDATE_FORMAT_FLAGS).join("|"));
    expect(formatHelp(driftSpec())).toBe(formatChoices(DRIFT_FORMAT_FLAGS).join("|"));
    expect(formatChoices(VALIDATE_FORMAT_FLAGS)).toEqual([
      "auto",
      ...FORMAT_IDS.map((id) => id.split("/")[0]),
    ]);
    expect(formatHelp(validateSpec())).toContain("auto|rollout-lens|slime|atropos|strands|verl");
    // Text-only formats (verl, prime-rl samples, ART, SkyRL evals, NeMo-RL val, AReaL, miles
    // trajectory sidecars, Tinker rollout summaries) are not drift formats; prime-rl traces
    // (verifiers), Tinker's capture, SkyRL batches and prime-rl rollout tables carry ids.
    expect(formatHelp(driftSpec())).toBe(
      "auto|rollout-lens|slime|atropos|strands|atif|nemo-rl|verifiers|tinker-capture|skyrl-batch|prime-rl-rollouts",
    );
  });
});
