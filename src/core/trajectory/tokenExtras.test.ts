import { describe, expect, it } from "vitest";
import { modelSegment, promptSegment, trajectory } from "../../test/trajectoryBuilders";
import { tokenExtras } from "./tokenExtras";

describe("tokenExtras", () => {
  const t = {
    ...trajectory([promptSegment([1, 2]), modelSegment([3, 4, 5], 1)]),
    metadata: {
      rollout_routed_experts: [
        [
          [0, 1],
          [2, 3],
        ],
        [
          [4, 5],
          [6, 7],
        ],
        [
          [1, 1],
          [2, 2],
        ],
        [
          [3, 3],
          [4, 4],
        ],
      ],
      rollout_top_p_token_ids: [3, 9, 4, 5],
      rollout_top_p_token_offsets: [0, 2, 3, 4],
      advantages: [0.5, 0.5, 0.5],
      entropy: [0.1, 0.2, 0.3],
    },
  };

  it("reads the routed experts of token t from row t ([T-1, layers, top-k])", () => {
    expect(tokenExtras(t, 1).routedExperts).toEqual([
      [4, 5],
      [6, 7],
    ]);
    // The last token has no row: it never went through the model.
    expect(tokenExtras(t, 4).routedExperts).toBeUndefined();
  });

  it("reads the top-p nucleus and training values of response tokens only", () => {
    expect(tokenExtras(t, 2)).toMatchObject({ topPKept: [3, 9], advantage: 0.5, entropy: 0.1 });
    expect(tokenExtras(t, 4)).toMatchObject({ topPKept: [5], entropy: 0.3 });
    expect(tokenExtras(t, 0).topPKept).toBeUndefined();
    expect(tokenExtras(t, 0).advantage).toBeUndefined();
  });
});
