import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import type { Trajectory } from "../trajectory/types";
import { writeAtroposGroup } from "./atropos";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";
import { readRolloutLine } from "./readRolloutLine";
import { writeRolloutLens } from "./rolloutLens";
import { writeSlime } from "./slime";
import { writeStrands } from "./strands";
import { writeVerl } from "./verl";

function read(line: string): Trajectory[] {
  const result = readRolloutLine(line, 1);
  if (result.kind !== "trajectories") throw new Error(JSON.stringify(result));
  return result.trajectories;
}

function parsed(line: string): unknown {
  const result = parseJsonLine(line);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** Source line -> Trajectory -> rollout-lens/v1 text -> Trajectory. */
function viaRolloutLens(line: string): Trajectory {
  const [t] = read(line);
  if (!t) throw new Error("no trajectory");
  const [back] = read(stringifyJsonLine(writeRolloutLens(t)));
  if (!back) throw new Error("no trajectory after rollout-lens/v1");
  return back;
}

const slimeLine = fixtureLines("reference-slime.jsonl")[0] ?? "";
const strandsLine = fixtureLines("reference-strands.jsonl")[0] ?? "";

describe("round trips through rollout-lens/v1", () => {
  const slime = parsed(slimeLine);
  const strandsValue = parsed(strandsLine);
  const slimeVariants: { name: string; line: string }[] = [
    { name: "reference Sample (0.0 placeholders)", line: slimeLine },
    {
      name: "strands-via-slime (real scores and null at mask 0)",
      line: slimeLine.replace(
        '"rollout_log_probs":[-0.31,-0.02,-0.004,-0.0006,0.0,0.0',
        '"rollout_log_probs":[-0.31,-0.02,-0.004,-0.0006,-0.9,null',
      ),
    },
    {
      name: "no logprobs, reward dict, failed status",
      line: slimeLine
        .replace(/"rollout_log_probs":\[[^\]]*\]/, '"rollout_log_probs":null')
        .replace('"reward":1.0', '"reward":{"acc":1,"len":0.2}')
        .replace('"status":"completed"', '"status":"failed"'),
    },
    {
      name: "NaN reward and pending status",
      line: slimeLine
        .replace('"reward":1.0', '"reward":NaN')
        .replace('"status":"completed"', '"status":"pending"'),
    },
  ];
  it.each(slimeVariants)(
    "slime -> rollout-lens/v1 -> slime keeps everything: $name",
    ({ line }) => {
      const back = writeSlime(viaRolloutLens(line));
      const original = parsed(line);
      expect(back).toEqual(original);
      expect(stringifyJsonLine(back).length).toBeGreaterThan(0);
    },
  );

  it("slime -> rollout-lens/v1 -> slime keeps token arrays bit for bit", () => {
    const back = writeSlime(viaRolloutLens(slimeLine));
    expect(typeof slime === "object" && slime !== null).toBe(true);
    for (const key of ["tokens", "loss_mask", "rollout_log_probs", "response_length"]) {
      expect(back[key]).toStrictEqual(Reflect.get(Object(slime), key));
    }
  });

  it("strands -> rollout-lens/v1 -> strands keeps token_ids, loss_mask, logprobs and the wrapper", () => {
    const back = writeStrands(viaRolloutLens(strandsLine));
    expect(back).toEqual(strandsValue);
    for (const key of ["token_ids", "loss_mask", "logprobs", "segment_info"]) {
      expect(back[key]).toStrictEqual(Reflect.get(Object(strandsValue), key));
    }
  });

  it("a bare strands Rollout writes back bare", () => {
    const bare = {
      token_ids: [1, 2, 3, 4],
      loss_mask: [0, 0, 1, 1],
      logprobs: [null, -1.5, -0.25, -0.0],
      segment_info: [
        [false, 2],
        [true, 2],
      ],
      routed_experts: [],
      image_data: [],
    };
    const back = writeStrands(viaRolloutLens(stringifyJsonLine(bare)), { wrapped: false });
    expect(back).toStrictEqual(bare);
  });

  it("strands -> slime matches what the slime example computes", () => {
    const [t] = read(strandsLine);
    const out = t ? writeSlime(t) : {};
    const s = Object(strandsValue);
    expect(out.tokens).toEqual(s.token_ids);
    expect(out.response_length).toBe(20);
    expect(out.loss_mask).toEqual(s.loss_mask.slice(13));
    expect(out.rollout_log_probs).toEqual(s.logprobs.slice(13));
  });

  it("rollout-lens/v1 -> rollout-lens/v1 is the identity", () => {
    const line = fixtureLines("reference-rollout-lens.jsonl")[0] ?? "";
    const [t] = read(line);
    expect(t && writeRolloutLens(t)).toEqual(parsed(line));
  });

  it("atropos group -> rows -> group restores -100 masks and 1.0 sentinels", () => {
    for (const line of [
      fixtureLines("reference-atropos.jsonl")[0] ?? "",
      fixtureLines("atropos-rubiks-trimmed.jsonl")[1] ?? "",
    ]) {
      expect(writeAtroposGroup(read(line))).toEqual(parsed(line));
    }
  });

  it("verl -> verl keeps the text record", () => {
    const line = fixtureLines("reference-verl.jsonl")[0] ?? "";
    expect(writeVerl(viaRolloutLens(line))).toEqual(parsed(line));
  });
});
