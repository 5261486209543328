import { describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/core/trajectory/types";
import { forkEpisodeSchema } from "../../src/core/wire/episodes";
import { branchRequests, thinkingOf } from "./branches";

const parent: Trajectory = {
  id: "ep_p",
  source: { kind: "live" },
  format: "rollout-lens/v1",
  status: "completed",
  segments: [],
  samplingParams: { temperature: 0.7, max_new_tokens: 64, custom_params: { policy: "calculator" } },
  messages: [{ role: "user", content: "What is 15*7?" }],
  metadata: {
    tools: ["calculator", "mock"],
    max_iterations: 3,
    policy: "calculator",
    enable_thinking: false,
  },
};

const body = (extra: Record<string, unknown>) =>
  forkEpisodeSchema.parse({ fork: { episode: "ep_p", index: 200 }, ...extra });

describe("branchRequests", () => {
  it("reads the parent's tool names from the schemas live episodes keep (or from bare names)", () => {
    const schema = (name: string) => ({
      type: "function",
      function: { name, description: name, parameters: { type: "object", properties: {} } },
    });
    const withSchemas = {
      ...parent,
      metadata: { ...parent.metadata, tools: [schema("calculator"), schema("mock")] },
    };
    expect(branchRequests(withSchemas, body({}), 1)[0]?.tools).toEqual(["calculator", "mock"]);
    const mixed = {
      ...parent,
      metadata: { ...parent.metadata, tools: [schema("calculator"), "x"] },
    };
    expect(branchRequests(mixed, body({}), 1)[0]?.tools).toEqual(["calculator", "x"]);
    const bad = { ...parent, metadata: { ...parent.metadata, tools: [{ name: 1 }] } };
    expect(branchRequests(bad, body({}), 1)[0]?.tools).toBeUndefined();
  });

  it("inherits the parent's tools, limit, policy, thinking and sampling unless the fork sets them", () => {
    const [request] = branchRequests(parent, body({}), 1);
    expect(request).toEqual({
      prompt: "What is 15*7?",
      tools: ["calculator", "mock"],
      max_iterations: 3,
      policy: "calculator",
      enable_thinking: false,
      sampling_params: { temperature: 0.7, max_new_tokens: 64 },
    });
    const [own] = branchRequests(
      parent,
      body({
        tools: ["mock"],
        max_iterations: 1,
        sampling_params: { temperature: 0 },
        policy: "looping",
      }),
      1,
    );
    expect(own).toMatchObject({
      tools: ["mock"],
      max_iterations: 1,
      policy: "looping",
      sampling_params: { temperature: 0, max_new_tokens: 64 },
    });
    expect(own?.sampling_params).not.toHaveProperty("sampling_seed");
  });

  it("gives k branches consecutive seeds, from the request's seed or a random base", () => {
    const given = branchRequests(parent, body({ sampling_params: { sampling_seed: 41 } }), 3);
    expect(given.map((r) => r.sampling_params?.sampling_seed)).toEqual([41, 42, 43]);
    const drawn = branchRequests(parent, body({}), 4, () => 1000);
    expect(drawn.map((r) => r.sampling_params?.sampling_seed)).toEqual([1000, 1001, 1002, 1003]);
  });

  it("takes enable_thinking from the fork request over the parent's", () => {
    expect(thinkingOf(parent, body({}))).toBe(false);
    expect(thinkingOf(parent, body({ enable_thinking: true }))).toBe(true);
    expect(thinkingOf({ ...parent, metadata: {} }, body({}))).toBeUndefined();
  });
});
