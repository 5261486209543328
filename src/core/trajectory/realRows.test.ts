import { beforeAll, describe, expect, it } from "vitest";
import { loadTokenizer } from "../../../test-support/tokenizers";
import { fixtureLines } from "../../test/fixtureFiles";
import { modeInputMissing } from "../drift/driftInputs";
import { planTurnRenders } from "../drift/prefixCheck";
import { summarizeTrajectory } from "../files/rowSummary";
import { trajectoryToAtif } from "../formats/atifWrite";
import { readRolloutLine } from "../formats/readRolloutLine";
import type { Tokenizer } from "../tokenizer/types";
import { canonicalRole, isAssistantRole, ROLE_ALIASES } from "./roles";
import { renderedMessages, rowMessages, rowText } from "./rowText";
import type { Trajectory } from "./types";

/** The trajectories of a fixture's lines, as the CLI and the file worker read them. */
function rowsOf(name: string): Trajectory[] {
  return fixtureLines(name).flatMap((text, k) => {
    const r = readRolloutLine(text, k + 1, undefined, name);
    if (r.kind !== "trajectories") throw new Error(`${name}:${k + 1} did not read`);
    return r.trajectories;
  });
}

// Real Llama-3 atropos rows (the Rubik's cube env: roles system/environment/agent), and the same
// rows with their messages rendered to one string per row, or left out (src/test/fixtures/README).
const dicts = () => rowsOf("atropos-rubiks-trimmed.jsonl");
const [rendered, bare] = rowsOf("atropos-rubiks-rendered.jsonl") as [Trajectory, Trajectory];

describe("role aliases", () => {
  it("reads producers' role names as the four template roles", () => {
    expect(canonicalRole("agent")).toBe("assistant");
    expect(canonicalRole("environment")).toBe("user");
    expect(canonicalRole("ipython")).toBe("tool");
    expect(canonicalRole("Assistant")).toBe("assistant");
    expect(canonicalRole("narrator")).toBeUndefined();
    expect(isAssistantRole("agent")).toBe(true);
    for (const role of Object.values(ROLE_ALIASES)) expect(canonicalRole(role)).toBe(role);
  });
});

describe("the text of real atropos rows", () => {
  it("reads messages kept as rendered strings as the row's text, and says why when none", () => {
    expect(rowMessages(rendered).kind).toBe("rendered");
    expect(rowText(rendered)).toContain("Current state of the Rubik's cube");
    expect(rowMessages(bare)).toEqual({ kind: "none", reason: "the record carries no messages" });
  });

  it("row search finds every row by the words of its messages, rendered or not", () => {
    for (const t of [...dicts(), rendered]) {
      expect(summarizeTrajectory(t, 0, "atropos").searchText).toContain("rubik's cube");
    }
  });

  it("ATIF export writes each agent step's words from the `agent` messages", () => {
    const t = dicts()[0] as Trajectory;
    const agent = (t.messages ?? []).filter((m) => m.role === "agent").map((m) => m.content);
    const doc = trajectoryToAtif(t) as { steps: { source: string; message: string }[] };
    const steps = doc.steps.filter((s) => s.source === "agent").map((s) => s.message);
    expect(steps).toEqual(agent);
    expect(steps.every((m) => m.length > 0)).toBe(true);
    expect(doc.steps[0]?.message).toContain("Current state of the Rubik's cube");
  });

  it("ATIF export takes each step's words from a rendered transcript's `### role` sections", () => {
    const doc = trajectoryToAtif(rendered) as {
      steps: { source: string; message: string }[];
      extra: { rollout_lens: Record<string, unknown> };
    };
    expect(doc.steps[0]?.message).toMatch(/^Current state of the Rubik's cube:/);
    const agent = doc.steps.filter((s) => s.source === "agent");
    expect(agent).toHaveLength(1);
    expect(agent[0]?.message).toMatch(/^<think>\nThe cube's current configuration/);
    expect(agent[0]?.message).not.toContain("### environment");
    expect(doc.extra.rollout_lens.message_text_missing).toBeUndefined();
  });

  it("reads `### role` sections only when every heading is a known role", () => {
    expect(renderedMessages("### user\nhi\n\n### agent\nhello\n")).toEqual([
      { role: "user", content: "hi" },
      { role: "agent", content: "hello" },
    ]);
    expect(renderedMessages("### Notes\nnot a role\n### user\nhi")).toBeUndefined();
    expect(renderedMessages("preamble\n### user\nhi")).toBeUndefined();
    expect(renderedMessages("no headings at all")).toBeUndefined();
  });

  it("ATIF export says why a step has no words when rendered text has no role sections", () => {
    const plain: Trajectory = {
      ...rendered,
      metadata: { messages: ["a transcript, no headings"] },
    };
    const doc = trajectoryToAtif(plain) as { extra: { rollout_lens: Record<string, unknown> } };
    expect(doc.extra.rollout_lens.message_text_missing).toMatch(/rendered text/);
  });

  it("the template check has no input for rendered or missing messages, and says why", () => {
    expect(modeInputMissing(rendered, "template")).toMatch(/rendered text/);
    expect(modeInputMissing(bare, "template")).toMatch(/no messages/);
    expect(modeInputMissing(dicts()[0] as Trajectory, "template")).toBeUndefined();
  });
});

describe("the per-turn check on `agent` turns", () => {
  let llama3: Tokenizer;
  beforeAll(async () => {
    llama3 = await loadTokenizer("llama3");
  });

  it("renders one prefix per agent turn", () => {
    for (const t of dicts()) {
      const agents = (t.messages ?? []).filter((m) => m.role === "agent").length;
      const models = t.segments.filter((s) => s.kind === "model").length;
      expect(planTurnRenders(t, llama3).renders).toHaveLength(Math.min(agents, models));
      expect(agents).toBeGreaterThan(0);
    }
  });
});
