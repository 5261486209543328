import { describe, expect, it } from "vitest";
import type { GenerateCall } from "../trajectory/types";
import { callFromWire, callSchema, callToWire } from "./wireSchemas";

describe("a call's retries on the wire (rollout-lens/v1 calls[])", () => {
  const call: GenerateCall = {
    rid: "r3",
    inputLen: 10,
    outputLen: 4,
    finishReason: { type: "stop", matched: 2 },
    upstream: "http://b:2",
    retries: [{ rid: "r1", upstream: "http://a:1", error: "SglangHttpError: 503", backoffMs: 480 }],
  };

  it("are written snake_case and read back unchanged", () => {
    const wire = callToWire(call);
    expect(wire.retries).toEqual([
      { rid: "r1", upstream: "http://a:1", error: "SglangHttpError: 503", backoff_ms: 480 },
    ]);
    const parsed = callSchema.parse(JSON.parse(JSON.stringify(wire)));
    expect(callFromWire(parsed)).toMatchObject(call);
  });

  it("are absent from a call that needed none", () => {
    const { retries: _, ...plain } = call;
    expect("retries" in callToWire(plain)).toBe(false);
    expect("retries" in callFromWire(callSchema.parse(callToWire(plain)))).toBe(false);
  });

  it("a malformed retry is refused with its field", () => {
    const bad = { ...callToWire(call), retries: [{ rid: "r1", error: "x" }] };
    const result = callSchema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["retries", 0, "backoff_ms"]);
  });
});
