import { describe, expect, it } from "vitest";
import { parseKnobList, planKnobs, samplingFactsOf } from "./knobs";

const options = { batchSize: 8, hasUpstreamB: false };

describe("planKnobs", () => {
  it("changes exactly one field of the reference per knob", () => {
    const facts = samplingFactsOf({ temperature: 0.7, top_p: 0.9 });
    const plans = planKnobs(["temperature", "top_p", "batch", "decode"], facts, options);
    const ref = { temperature: 1, cotenants: 0, mode: "prefill", upstream: "a" };
    expect(plans.map((p) => (p.status === "planned" ? p.setting : p.reason))).toEqual([
      ref,
      { ...ref, temperature: 0.7 },
      { ...ref, truncation: { top_p: 0.9, top_k: -1 } },
      { ...ref, cotenants: 7 },
      { ...ref, mode: "decode" },
    ]);
  });

  it("says why a knob cannot run instead of running a no-op", () => {
    const plans = planKnobs(["temperature", "top_p", "upstream"], samplingFactsOf({}), options);
    expect(plans.slice(1)).toEqual([
      {
        knob: "temperature",
        status: "unchecked",
        reason: "the row records no sampling temperature",
      },
      {
        knob: "top_p",
        status: "unchecked",
        reason: "the row's sampling params truncate nothing (no top_p < 1, no top_k > 0)",
      },
      {
        knob: "upstream",
        status: "unchecked",
        reason:
          "no second upstream: give bisect --sglang-b URL, or start the server with --sglang A,B",
      },
    ]);
    const atOne = planKnobs(["temperature"], samplingFactsOf({ temperature: 1 }), options);
    expect(atOne[1]).toMatchObject({
      status: "unchecked",
      reason: "sampled at T = 1: nothing to vary",
    });
  });

  it("plans the second upstream when one is given", () => {
    const [, b] = planKnobs(["upstream"], {}, { batchSize: 2, hasUpstreamB: true });
    expect(b).toMatchObject({ status: "planned", setting: { upstream: "b", temperature: 1 } });
  });
});

describe("parseKnobList", () => {
  it("reads a comma list and names an unknown knob", () => {
    expect(parseKnobList("batch, decode,batch")).toEqual({ ok: true, knobs: ["batch", "decode"] });
    expect(parseKnobList("batch,tp")).toEqual({
      ok: false,
      error: 'unknown knob "tp" (knobs: temperature, top_p, batch, decode, upstream)',
    });
  });
});
