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

describe("a CSV or TSV export dropped on the files page", () => {
  it("is one error naming the file and the command that writes it as JSON lines", async () => {
    await expect(open("completions.csv", "step,prompt,completion\n10,a,b\n")).rejects.toThrow(
      /^completions\.csv: a CSV file \(delimited text, not JSON\).*FILE\.csv FILE\.jsonl$/,
    );
    await expect(open("samples.tsv", "prompt\tcompletion\na\tb\n")).rejects.toThrow(
      /^samples\.tsv: a TSV file/,
    );
  });
});
