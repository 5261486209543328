import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixturePath } from "../../test/fixtureFiles";
import { readRolloutValue } from "../formats/readRolloutLine";
import { csvRecords } from "./csvRecords";

describe("csvRecords", () => {
  it("reads TRL's table as pandas' to_csv writes it: quoted multi-line cells, numbers, NaN as null", () => {
    const text = readFileSync(fixturePath("dumps/csv/completions_step10.csv"), "utf8");
    const rows = csvRecords(text, "csv");
    expect(rows).toHaveLength(4);
    expect(rows[0]).toEqual({
      step: 10,
      prompt: "<|im_start|>user\nWhat is 17 * 3?<|im_end|>\n<|im_start|>assistant\n",
      completion: "<think>17 * 3 = 51</think>\n51",
      accuracy_reward: 1,
      format_reward: 1,
      advantage: 0,
    });
    expect(rows[3]).toMatchObject({ completion: "Cusco", format_reward: null });
    expect(rows[3]?.advantage).toBeCloseTo(-Math.SQRT1_2, 4);
    // Each row reads as a text table row, its columns kept.
    const read = readRolloutValue(rows[3] as Record<string, unknown>, 5);
    if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
    expect(read.format).toBe("text-table");
    expect(read.trajectories[0]?.messages?.at(-1)?.content).toBe("Cusco");
  });

  it("reads TSV, a byte order mark, doubled quotes, and Python's nan and inf", () => {
    const tsv = '\uFEFFprompt\tcompletion\treward\n"say ""hi"""\thi\tnan\np\tc\t-inf\n';
    expect(csvRecords(tsv, "tsv")).toEqual([
      { prompt: 'say "hi"', completion: "hi", reward: Number.NaN },
      { prompt: "p", completion: "c", reward: Number.NEGATIVE_INFINITY },
    ]);
  });

  it("keeps text and group columns as written: an answer of 72, a uid of 0012, a completion nan", () => {
    const csv = 'question,answer,reward,uid\n"What is 8*9?",72,1.0,0012\n"Say nan",nan,nan,7\n';
    const rows = csvRecords(csv, "csv");
    expect(rows).toEqual([
      { question: "What is 8*9?", answer: "72", reward: 1, uid: "0012" },
      { question: "Say nan", answer: "nan", reward: Number.NaN, uid: "7" },
    ]);
    const read = readRolloutValue(rows[0] as Record<string, unknown>, 2);
    if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
    const [t] = read.trajectories;
    expect([t?.group, t?.reward, t?.messages?.at(-1)?.content]).toEqual(["0012", 1, "72"]);
  });

  it("names the row whose cells do not match the header, and a table with no header", () => {
    expect(() => csvRecords("prompt,completion\na,b\nc\n", "csv")).toThrow(
      /^the CSV table does not read: row 2 \(after the header\): Too few fields/,
    );
    expect(() => csvRecords("a,b,c\n1,2,3,4\n", "csv")).toThrow(/row 1 .*Too many fields/);
    expect(() => csvRecords("", "csv")).toThrow(/^the CSV table has no header row$/);
  });
});
