import { describe, expect, it } from "vitest";
import { fixtureLines } from "../../test/fixtureFiles";
import { flattenSegments } from "../trajectory/flatten";
import { policyVersions } from "../trajectory/policyVersions";
import type { Trajectory } from "../trajectory/types";
import { readRolloutLine } from "./readRolloutLine";
import { RECORDED_TREE } from "./verifiers";

const STEP0 = "prime-rl-run/rollouts/step_0/train";

type Rec = Record<string, unknown>;
type Node = { parent?: number; token_ids: number[]; mask: boolean[]; logprobs: number[] } & Rec;

function read(line: string, n = 1): Trajectory[] {
  const r = readRolloutLine(line, n, undefined, "traces.jsonl");
  if (r.kind !== "trajectories") throw new Error(JSON.stringify(r));
  expect(r.format).toBe("verifiers");
  return r.trajectories;
}

function nodesOf(line: string): Node[] {
  const episode = JSON.parse(line) as { traces: { nodes: Node[] }[] };
  return episode.traces[0]?.nodes ?? [];
}

/** The branch's tokens as verifiers' `Branch.token_ids` / `sampled_mask` / `logprobs` give them. */
function branchOf(nodes: Node[], path: number[]) {
  const ids = path.flatMap((i) => nodes[i]?.token_ids ?? []);
  const mask = path.flatMap((i) => nodes[i]?.mask ?? []);
  const logprobs = path.flatMap((i) => {
    const node = nodes[i] as Node;
    let li = 0;
    return node.mask.map((m) => (m ? (node.logprobs[li++] ?? null) : null));
  });
  return { ids, mask: mask.map((m) => (m ? 1 : 0)), logprobs };
}

describe("verifiers v1 Episode records (prime-rl traces.jsonl)", () => {
  const [forked, linear] = fixtureLines(`${STEP0}/all/traces.jsonl`) as [string, string];

  it("cuts every root→leaf path into one trajectory, ids/mask/logprobs as the node deltas concatenated", () => {
    const ts = read(forked);
    expect(ts.map((t) => t.id)).toEqual(["tr0t0.b0", "tr0t0.b1"]);
    const nodes = nodesOf(forked);
    for (const [t, path] of [
      [ts[0], [0, 1, 2]],
      [ts[1], [0, 1, 3, 4, 5]],
    ] as const) {
      const flat = flattenSegments(t?.segments ?? []);
      const want = branchOf(nodes, [...path]);
      expect(flat.tokenIds).toEqual(want.ids);
      expect(flat.lossMask).toEqual(want.mask);
      expect(flat.logprobs).toEqual(want.logprobs);
    }
    expect(read(linear)).toHaveLength(1);
  });

  it("keeps the recorded tree: node ids, parents and [start, end) ranges in the trajectory's ids", () => {
    const [a, b] = read(forked);
    const tree = b?.metadata[RECORDED_TREE] as { tree: string; path: Rec[] };
    expect(tree.tree).toBe("tr0t0");
    expect(tree.path.map((p) => [p.id, p.parent])).toEqual([
      ["0", null],
      ["1", "0"],
      ["3", "1"],
      ["4", "3"],
      ["5", "4"],
    ]);
    const nodes = nodesOf(forked);
    let at = 0;
    for (const p of tree.path) {
      const len = nodes[Number(p.id)]?.token_ids.length ?? -1;
      expect([p.start, p.end]).toEqual([at, at + len]);
      at += len;
    }
    const shared = (a?.metadata[RECORDED_TREE] as { path: Rec[] } | undefined)?.path.slice(0, 2);
    expect(shared).toEqual(tree.path.slice(0, 2));
  });

  it("kinds from who produced the tokens; calls, finish reasons, group, reward, step and policy span", () => {
    const [a, b] = read(forked);
    expect(a?.segments.map((s) => s.kind)).toEqual(["prompt", "model"]);
    // The restated (not sampled) call and the tool result are input to the second model turn.
    expect(b?.segments.map((s) => s.kind)).toEqual(["prompt", "model"]);
    const [lin] = read(linear);
    expect(lin?.segments.map((s) => s.kind)).toEqual(["prompt", "model", "tool", "model"]);
    expect(lin?.segments.map((s) => s.finishReason?.type)).toEqual([
      undefined,
      "stop",
      undefined,
      "stop",
    ]);
    const starts = [0, 1, 2].map((k) =>
      lin?.segments.slice(0, k + 1).reduce((n, s) => n + s.tokenIds.length, 0),
    );
    expect(lin?.calls?.map((c) => [c.inputLen, c.outputLen])).toEqual([
      [starts[0], lin?.segments[1]?.tokenIds.length],
      [starts[2], lin?.segments[3]?.tokenIds.length],
    ]);
    expect(lin?.model).toBe("meta-llama/Llama-3.2-1B-Instruct");
    expect([a?.group, a?.reward, lin?.reward]).toEqual(["grp-0-train", 1, 0]);
    expect(a?.metadata.verifiers).toMatchObject({
      work: "train",
      step: 0,
      policy_span: { start: 0, end: 0 },
      branch: 0,
      branches: 2,
    });
    expect(a?.metadata.rewards).toEqual({ correct: { score: 1, weight: 1 } });
  });

  it("the policy span shows as the model turns' weights: one version, or the span", () => {
    const [lin] = read(linear);
    const one = lin ? policyVersions(lin) : undefined;
    expect(one?.source).toBe("run.work.policy");
    expect(one?.spans.map((s) => s.version)).toEqual(["0", "0"]);
    const [step1] = fixtureLines("prime-rl-run/rollouts/step_1/train/all/traces.jsonl") as [string];
    const [t] = read(step1);
    expect(t ? policyVersions(t)?.spans.map((s) => s.version) : []).toEqual(["0–1", "0–1"]);
  });

  it("spreads advantages and reference logprobs over the sampled tokens only", () => {
    const [line] = fixtureLines(`${STEP0}/effective/traces.jsonl`) as [string];
    const [t] = read(line);
    const flat = flattenSegments(t?.segments ?? []);
    const ref = t?.logprobLanes?.reference ?? [];
    const adv = t?.metadata.advantages as (number | null)[];
    expect(ref).toHaveLength(flat.tokenIds.length);
    expect(adv).toHaveLength(flat.tokenIds.length);
    flat.lossMask.forEach((m, k) => {
      expect(ref[k] === null).toBe(m === 0);
      expect(adv[k] === null).toBe(m === 0);
    });
    expect(adv.filter((v) => v !== null).every((v) => v === 0.5)).toBe(true);
  });

  it("a sampled node the record does not train is a model segment with mask 0, not a tool one", () => {
    const episode = JSON.parse(linear) as { traces: { nodes: Node[] }[] };
    const node = episode.traces[0]?.nodes[2] as Node;
    node.mask = node.mask.map(() => false);
    node.logprobs = [];
    const [t] = read(JSON.stringify(episode));
    expect(t?.segments.map((s) => [s.kind, s.lossMask.every((m) => m === 0)])).toEqual([
      ["prompt", true],
      ["model", true],
      ["tool", true],
      ["model", false],
    ]);
  });

  it("an episode that failed before any trace still opens, as an aborted text-only row", () => {
    const line = JSON.stringify({
      id: "e1",
      task: { type: "Task", data: {} },
      ok: false,
      errors: [{ type: "TimeoutError", message: "sandbox boot" }],
      traces: [],
    });
    const [t] = read(line);
    expect([t?.status, t?.segments.length]).toEqual(["aborted", 0]);
  });

  it.each([
    [
      "a parent that is not an earlier node",
      (n: Node[]) => Object.assign(n[1] as Node, { parent: 4 }),
      "traces[0].nodes[1].parent",
    ],
    [
      "a mask shorter than the delta",
      (n: Node[]) => (n[0] as Node).mask.pop(),
      "traces[0].nodes[0].mask",
    ],
    [
      "logprobs not one per sampled token",
      (n: Node[]) => (n[2] as Node).logprobs.pop(),
      "traces[0].nodes[2].logprobs",
    ],
    [
      "a negative token id",
      (n: Node[]) => ((n[0] as Node).token_ids[3] = -1),
      "traces[0].nodes[0].token_ids",
    ],
  ])("%s is an error naming the field", (_, spoil, field) => {
    const episode = JSON.parse(linear) as { traces: { nodes: Node[] }[] };
    spoil(episode.traces[0]?.nodes ?? []);
    const r = readRolloutLine(JSON.stringify(episode), 3);
    expect(r.kind).toBe("error");
    if (r.kind === "error") expect([r.error.line, r.error.field]).toEqual([3, field]);
  });
});

describe("verifiers kept_tokens", () => {
  const [, linear] = fixtureLines(`${STEP0}/all/traces.jsonl`) as [string, string];

  /** The linear fixture with a kept set on every sampled token of its first sampling node. */
  function withKept(mutate: (kept: { ids: number[]; counts: number[] }) => void) {
    const episode = JSON.parse(linear) as { traces: { nodes: Node[] }[] };
    const nodes = episode.traces[0]?.nodes ?? [];
    const at = nodes.findIndex((n) => n.mask.some(Boolean));
    const node = nodes[at] as Node;
    const sampledIds = node.token_ids.filter((_, i) => node.mask[i]);
    const kept = { ids: sampledIds.flatMap((id) => [id, id + 1]), counts: sampledIds.map(() => 2) };
    mutate(kept);
    node.kept_tokens = kept;
    return { line: JSON.stringify(episode), nodes, at };
  }

  it("puts each sampled token's kept set at its token, per token as Trace.kept_tokens has it", async () => {
    const { keptSetReader } = await import("../trajectory/keptSets");
    const { line, nodes, at } = withKept(() => {});
    const [t] = read(line);
    if (!t) throw new Error("no trajectory");
    const reader = keptSetReader(t);
    const start = nodes.slice(0, at).reduce((s, n) => s + n.token_ids.length, 0);
    const node = nodes[at] as Node;
    node.token_ids.forEach((id, i) => {
      expect(reader?.(start + i)).toEqual(node.mask[i] ? [id, id + 1] : undefined);
    });
    expect(reader?.(0)).toBeUndefined();
  });

  it("names the field when the counts do not fit the node", () => {
    const { line } = withKept((kept) => {
      kept.counts.push(1);
    });
    const r = readRolloutLine(line, 1, undefined, "traces.jsonl");
    expect(r.kind).toBe("error");
    if (r.kind === "error") expect(r.error.field).toMatch(/nodes\[\d+\]\.kept_tokens$/);
  });
});

describe("verifiers loss_weights (prime-rl's echo stamps `ce` on observation nodes)", () => {
  const [line] = fixtureLines("prime-rl-run/rollouts/step_1/train/effective/traces.jsonl") as [
    string,
  ];
  /** The line as echo leaves it: the tool node (3), after a sampled one, weighted over its span. */
  function echoed(weights?: number[]): string {
    const episode = JSON.parse(line) as { traces: { nodes: Node[] }[] };
    const tool = episode.traces[0]?.nodes[3] as Node;
    tool.loss_weights = { ce: weights ?? tool.token_ids.map(() => 1.0) };
    return JSON.stringify(episode);
  }

  it("lays each stream over the branch's tokens, null on nodes that carry none", () => {
    const [t] = read(echoed());
    const nodes = nodesOf(line);
    const streams = t?.metadata.loss_weights as Record<string, (number | null)[]> | undefined;
    const ce = streams?.ce ?? [];
    const before = [0, 1, 2].reduce((n, i) => n + (nodes[i]?.token_ids.length ?? 0), 0);
    const span = nodes[3]?.token_ids.length ?? 0;
    expect(ce).toHaveLength(flattenSegments(t?.segments ?? []).tokenIds.length);
    expect(ce.slice(before, before + span)).toEqual(new Array(span).fill(1));
    expect(ce.filter((w) => w !== null)).toHaveLength(span);
  });

  it("refuses a stream not one weight per token_ids entry, naming the field", () => {
    const r = readRolloutLine(echoed([1, 1]), 1, undefined, "traces.jsonl");
    expect(r.kind).toBe("error");
    if (r.kind === "error") {
      expect(r.error.field).toBe("traces[0].nodes[3].loss_weights.ce");
      expect(r.error.message).toContain("2 weights for 7 token_ids");
    }
  });
});

describe("verifiers keys the reader does not model", () => {
  it("keeps the trace's and the episode's other keys verbatim (tools, timing, calls, run, ...)", () => {
    const [line] = fixtureLines(`${STEP0}/all/traces.jsonl`) as [string];
    const episode = JSON.parse(line) as Rec & { traces: Rec[] };
    const trace = episode.traces[0] as Rec;
    const [t] = read(line);
    const meta = t?.metadata.verifiers as Rec;
    const traceOther = meta.trace_other as Rec;
    expect(traceOther.tools).toEqual(trace.tools);
    expect(traceOther.calls).toEqual(trace.calls);
    expect(traceOther.timing).toEqual(trace.timing);
    expect(traceOther.stop_condition).toEqual(trace.stop_condition);
    expect((meta.episode_other as Rec).run).toEqual(episode.run);
    const nodes = trace.nodes as Rec[];
    const nodeOther = meta.node_other as Record<string, Rec>;
    expect(nodeOther["0"]).toEqual({
      timestamp: nodes[0]?.timestamp,
      is_content: nodes[0]?.is_content,
    });
    expect(Object.keys(nodeOther).length).toBeGreaterThan(1);
  });
});

describe("verifiers values orjson wrote as null (NaN, ±inf)", () => {
  it("opens the line and reads a null sampled logprob or advantage as no value at its token", () => {
    const [line] = fixtureLines(`${STEP0}/effective/traces.jsonl`) as [string];
    const episode = JSON.parse(line) as { traces: { nodes: Node[] }[] };
    const nodes = episode.traces[0]?.nodes ?? [];
    const sampled = nodes.findIndex((n) => n.sampled === true);
    const node = nodes[sampled] as Node & { advantages: (number | null)[] };
    (node.logprobs as (number | null)[])[1] = null;
    node.advantages[1] = null;
    const [t] = read(JSON.stringify(episode));
    const flat = flattenSegments(t?.segments ?? []);
    const before = nodes.slice(0, sampled).reduce((n, x) => n + x.token_ids.length, 0);
    const second = before + node.mask.indexOf(true) + 1;
    expect(flat.lossMask[second]).toBe(1);
    expect(flat.logprobs[second]).toBeNull();
    expect(flat.logprobs[second - 1]).toBe(node.logprobs[0]);
    const advantages = t?.metadata.advantages as (number | null)[] | undefined;
    expect(advantages).toHaveLength(flat.tokenIds.length);
    expect(advantages?.[second]).toBeNull();
  });
});
