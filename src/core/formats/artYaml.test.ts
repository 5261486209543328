import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../test/fixtureFiles";
import { artYamlRecords } from "./artYaml";
import { readRolloutValue } from "./readRolloutLine";

// 0003.yaml: ART's own serialize_trajectory_groups (scripts/fixtures/art_fixtures.py): two groups
// of two trajectories (an exception dropped by the writer), Choices' logprobs removed.
const text = readFileSync(fixturePath("dumps/art/trajectories/train/0003.yaml"), "utf8");

function readAll(records: unknown[]) {
  return records.map((r, k) => readRolloutValue(r, k + 1, undefined, "0003.yaml"));
}

describe("ART's trajectories YAML", () => {
  it("reads one trajectory per record, grouped, with rewards and the conversation", () => {
    const records = artYamlRecords(text);
    expect(records).toHaveLength(4);
    const read = readAll(records);
    const ts = read.flatMap((r) => (r.kind === "trajectories" ? r.trajectories : []));
    expect(read.every((r) => r.kind === "trajectories" && r.format === "art")).toBe(true);
    expect(ts.map((t) => [t.group, t.reward])).toEqual([
      ["0", 1],
      ["0", 0],
      ["1", 1],
      ["1", 0.5],
    ]);
    expect(ts[1]?.messages?.map((m) => [m.role, m.content])).toEqual([
      ["system", "You answer with the weather tool."],
      ["user", "What is the weather in Paris?"],
      ["assistant", '[tool call] get_weather {"city": "Paris"}'],
      ["tool", "rainy"],
      ["assistant", "It is rainy in Paris."],
    ]);
    // Every key the writer wrote is kept: metrics, logs, the trajectory's and its group's metadata.
    expect(ts[0]?.metadata).toMatchObject({
      group_index: 0,
      trajectory_index: 0,
      group_metadata: { step: 3 },
      metrics: { correct: 1, turns: 2 },
      metadata: { scenario: "Paris" },
      logs: ["tool get_weather(Paris) -> sunny"],
    });
    expect(ts[0]?.segments).toEqual([]);
  });

  it("names the line of YAML that does not parse, and a document of another shape", () => {
    expect(() => artYamlRecords("- metadata: {}\n  trajectories: [\n")).toThrow(
      /does not parse: line \d+, column \d+/,
    );
    expect(() => artYamlRecords("metadata: {}\n")).toThrow(/a list of trajectory groups/);
  });

  it("keeps a group or trajectory of another shape as a record its reader refuses, by field", () => {
    const read = readAll(artYamlRecords("- metadata: {}\n  trajectories: [5]\n- 7\n"));
    expect(read.map((r) => r.kind === "error" && r.error.field)).toEqual([
      "messages_and_choices",
      "messages_and_choices",
    ]);
  });
});
