import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { createFileIndex } from "../files/fileIndexer";
import { parquetRecordSource } from "../files/parquetSource";
import { indexRecords, needsColumnMapping } from "../files/recordIndexer";
import { idsAbsentReason } from "./idsAbsent";
import { openParquet } from "./parquet";
import { readRolloutLine } from "./readRolloutLine";

function read(record: Record<string, unknown>) {
  return readRolloutLine(JSON.stringify(record), 1, undefined, "t.jsonl");
}

describe("text tables (a prompt and a completion as text, no ids)", () => {
  it("open as text with the reward, every column kept", () => {
    const out = read({ prompt: "What is 2+2?", completion: "4", reward: 1, step: 3 });
    if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
    expect(out.format).toBe("text-table");
    const [t] = out.trajectories;
    expect(t?.reward).toBe(1);
    expect(t?.segments).toEqual([]);
    expect(t?.messages).toEqual([
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: "4" },
    ]);
    expect(t?.metadata).toMatchObject({ prompt: "What is 2+2?", completion: "4", step: 3 });
  });

  it("read a chat prompt (a list of messages) and other column names", () => {
    const out = read({
      question: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Capital of France?" }] },
      ],
      response: "Paris",
      score: 0.5,
    });
    if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
    expect(out.format).toBe("text-table");
    expect(out.trajectories[0]?.messages?.map((m) => m.content)).toEqual([
      "Be brief.",
      "Capital of France?",
      "Paris",
    ]);
    expect(out.trajectories[0]?.reward).toBe(0.5);
  });

  it("leave records with ids, and verl's own dump, to their readers", () => {
    const slime = read({ prompt: "p", response: "r", tokens: [1, 2], response_length: 1 });
    expect(slime.kind === "trajectories" && slime.format).toBe("slime");
    const verl = read({ input: "p", output: "r", score: 1 });
    expect(verl.kind === "trajectories" && verl.format).toBe("verl");
  });

  it("read a whole conversation: OpenAI chat messages, tool calls shown as text", () => {
    const out = read({
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "sunny" }] },
        {
          role: "assistant",
          content: "It is sunny.",
          function_call: { name: "log", arguments: {} },
        },
        { role: "assistant", content: { kind: "odd" } },
      ],
      reward: 1,
    });
    if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
    expect(out.format).toBe("text-table");
    const [t] = out.trajectories;
    expect(t?.reward).toBe(1);
    expect(t?.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: '[tool call] get_weather {"city":"Paris"}' },
      { role: "tool", content: "sunny" },
      { role: "assistant", content: "It is sunny.\n[tool call] log {}" },
      { role: "assistant", content: '{"kind":"odd"}' },
    ]);
    expect(t?.metadata.messages).toHaveLength(5);
  });

  it("read ShareGPT conversations (from/value), roles verbatim", () => {
    const out = read({
      conversations: [
        { from: "system", value: "Be brief." },
        { from: "human", value: "Hi" },
        { from: "gpt", value: "Hello" },
      ],
    });
    if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
    expect(out.trajectories[0]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "human", content: "Hi" },
      { role: "gpt", content: "Hello" },
    ]);
    expect(out.trajectories[0]?.reward).toBeUndefined();
  });

  it("read a prompt and a completion before a conversation, and refuse what is neither", () => {
    const both = read({
      prompt: "p",
      completion: "c",
      messages: [{ role: "user", content: "other" }],
    });
    expect(both.kind === "trajectories" && both.trajectories[0]?.messages).toEqual([
      { role: "user", content: "p" },
      { role: "assistant", content: "c" },
    ]);
    for (const record of [
      { messages: [] },
      { messages: [{ content: "no role" }] },
      { messages: "a string" },
      { messages: [{ role: "user", content: "hi" }], tokens: [1, 2] },
      { messages: [{ role: "user", content: "hi" }], prompt_token_ids: [1], output_token_ids: [2] },
    ]) {
      const out = read(record);
      expect(out.kind === "trajectories" && out.format).not.toBe("text-table");
    }
    // Ids under a table's own names: the error says how to read them, not a text-only row.
    const ids = read({
      messages: [{ role: "user", content: "hi" }],
      prompt_ids: [1],
      completion_ids: [2],
    });
    expect(ids.kind === "error" && ids.error.message).toMatch(
      /look like token ids: read it with --map/,
    );
  });

  it("name the field of a bad reward", () => {
    for (const reward of ["high", true, { accuracy: "yes" }, [1, "2"]]) {
      const out = read({ prompt: "p", completion: "c", reward });
      expect(out.kind).toBe("error");
      expect(out.kind === "error" && out.error.field).toBe("reward");
    }
  });

  it("read a reward written as text, and make no total of rewards by function", () => {
    const rewardOf = (reward: unknown) => {
      const out = read({ prompt: "p", completion: "c", reward });
      if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
      return out.trajectories[0];
    };
    expect(rewardOf("0.75")?.reward).toBe(0.75);
    expect(rewardOf(" -1e-2 ")?.reward).toBe(-0.01);
    const byFunction = rewardOf({ accuracy_reward: 1, format_reward: 0.5, length: null });
    expect(byFunction?.reward).toBeUndefined();
    expect(byFunction?.metadata.reward).toEqual({
      accuracy_reward: 1,
      format_reward: 0.5,
      length: null,
    });
  });

  it("read verifiers' results.jsonl rows (state_to_output): example group, truncation, metrics", () => {
    // Two rollouts of example 3 as verifiers' vf-eval writes them: metrics flattened beside.
    const row = (completion: string, reward: number, isTruncated: boolean) => ({
      example_id: 3,
      prompt: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "2+2?" },
      ],
      completion: [{ role: "assistant", content: completion }],
      answer: "4",
      reward,
      error: null,
      timing: { generation_ms: 812.0, scoring_ms: 3.1, total_ms: 815.1 },
      is_completed: true,
      is_truncated: isTruncated,
      stop_condition: isTruncated ? "max_tokens" : "no_tools_called",
      metrics: { correct_answer: reward },
      tool_defs: null,
      correct_answer: reward,
    });
    const [solved, cut] = [row("4", 1, false), row("Let me think", 0, true)].map((r) => {
      const out = read(r);
      if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
      expect(out.format).toBe("text-table");
      return out.trajectories[0];
    });
    expect([solved?.group, solved?.status, solved?.reward]).toEqual(["3", "completed", 1]);
    expect([cut?.group, cut?.status, cut?.reward]).toEqual(["3", "truncated", 0]);
    expect(solved?.messages?.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
  });

  it("show tool calls written as JSON text (verifiers' sanitize_tool_calls), none as an empty call", () => {
    const call = {
      id: "c1",
      type: "function",
      function: { name: "calc", arguments: '{"x":"3+3"}' },
    };
    const out = read({
      example_id: 1,
      prompt: [{ role: "user", content: "3+3?" }],
      completion: [
        { role: "assistant", content: "", tool_calls: [JSON.stringify(call)] },
        { role: "tool", content: "6" },
        {
          role: "assistant",
          content: "",
          tool_calls: [JSON.stringify({ tool: "search", input: { q: "six" } }), "not json {"],
        },
      ],
      reward: 1,
    });
    if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
    expect(out.trajectories[0]?.messages?.map((m) => m.content)).toEqual([
      "3+3?",
      '[tool call] calc {"x":"3+3"}',
      "6",
      '[tool call] {"tool":"search","input":{"q":"six"}}\n[tool call] not json {',
    ]);
  });

  it("say a row was cut where its finish says length", () => {
    for (const extra of [
      { truncated: true },
      { finish_reason: "length" },
      { stop_reason: "length" },
    ]) {
      const out = read({ prompt: "p", completion: "c", ...extra });
      expect(out.kind === "trajectories" && out.trajectories[0]?.status).toBe("truncated");
    }
    const stopped = read({ prompt: "p", completion: "c", finish_reason: "stop" });
    expect(stopped.kind === "trajectories" && stopped.trajectories[0]?.status).toBe("completed");
  });

  it("take the group from a group column: rows that share it are one group", () => {
    const groupOf = (record: Record<string, unknown>) => {
      const out = read({ prompt: "p", completion: "c", reward: 1, ...record });
      if (out.kind !== "trajectories") throw new Error(JSON.stringify(out));
      return out.trajectories[0]?.group;
    };
    expect(groupOf({ example_id: 7 })).toBe("7");
    expect(groupOf({ uid: "a1b2" })).toBe("a1b2");
    expect(groupOf({ group_id: "g", example_id: 7 })).toBe("g");
    expect(groupOf({})).toBeUndefined();
    expect(groupOf({ group: "math" })).toBeUndefined();
    expect(groupOf({ group_id: null, example_id: { n: 1 } })).toBeUndefined();
  });

  it("say why drift cannot check them", () => {
    expect(idsAbsentReason("text-table")).toMatch(/decoded text only.*no id column/);
  });

  it("open from Parquet as text, not as a table that needs a column mapping", async () => {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "prompt", data: ["What is 2+2?", "Capital of France?"] },
        { name: "completion", data: ["4", "Paris"] },
        { name: "reward", data: [1, 0] },
      ],
    });
    const source = parquetRecordSource(await openParquet(buffer));
    expect(await needsColumnMapping(source)).toBe(false);
    const index = createFileIndex("samples.parquet");
    for await (const _ of indexRecords(source, index));
    expect(index.errors).toEqual([]);
    expect(index.format).toBe("text-table");
    expect(index.rows.map((r) => r.reward)).toEqual([1, 0]);
  });
});
