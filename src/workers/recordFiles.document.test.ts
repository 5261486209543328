import { describe, expect, it } from "vitest";
import { byteSource, recordSourceOf } from "./recordFiles";

// A JSON document saved under a JSON-lines name, dropped on the files page: one clear error naming
// the file, as the CLI gives (server/files/readLines.ts), not every line of it reported bad.

const open = (name: string, text: string) => {
  const bytes = new TextEncoder().encode(text);
  const source = byteSource({ kind: "blob", name, blob: new Blob([bytes]) });
  return recordSourceOf(source, name, bytes.length, undefined);
};

describe("a JSON document under a .jsonl name in the file worker", () => {
  it("is one error saying it is a JSON array or an object spread over lines", async () => {
    await expect(open("run.jsonl", '[\n  {"a": 1},\n  {"a": 2}\n]\n')).rejects.toThrow(
      /^run\.jsonl: the file is a JSON array spread over lines, one JSON document, not JSON lines/,
    );
    await expect(open("run.jsonl", '{\n  "a": 1\n}\n')).rejects.toThrow(
      /one JSON object spread over lines/,
    );
  });

  it("leaves JSON lines to the line reader", async () => {
    expect(await open("run.jsonl", '{"a": 1}\n{"a": 2}\n')).toBeUndefined();
  });
});

describe("a CSV or TSV table dropped on the files page", () => {
  it("is read whole into one record per row, as the CLI reads it", async () => {
    const records = await open("completions.csv", 'prompt,completion,reward\n"2+2?",4,1.0\n');
    expect(records?.rows).toBe(1);
    expect(await records?.read(0, 1)).toEqual([{ prompt: "2+2?", completion: "4", reward: 1 }]);
  });

  it("is refused, naming the file and the cap, when it is over what is read whole", async () => {
    const bytes = new TextEncoder().encode("prompt,completion\na,b\n");
    const source = byteSource({ kind: "blob", name: "big.csv", blob: new Blob([bytes]) });
    // The size the file says it has: nothing past the sniffed head is read before the refusal.
    const big = 300 * 1024 * 1024;
    await expect(recordSourceOf(source, "big.csv", big, undefined)).rejects.toThrow(
      /^big\.csv: a CSV file of 314572800 bytes is over the 256 MiB read whole$/,
    );
  });

  it("names the file and the row whose cells do not match the header", async () => {
    await expect(open("samples.tsv", "prompt\tcompletion\na\tb\tc\n")).rejects.toThrow(
      /^samples\.tsv: the TSV table does not read: row 1 \(after the header\): Too many fields/,
    );
  });
});
