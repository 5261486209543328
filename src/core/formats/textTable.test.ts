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

  it("name the field of a bad reward", () => {
    const out = read({ prompt: "p", completion: "c", reward: "high" });
    expect(out.kind).toBe("error");
    expect(out.kind === "error" && out.error.field).toBe("reward");
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
