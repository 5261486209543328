import { describe, expect, it } from "vitest";
import { sseData } from "./sse";

async function collect(parts: readonly string[]): Promise<string[]> {
  async function* bytes() {
    for (const p of parts) yield new TextEncoder().encode(p);
  }
  const out: string[] = [];
  for await (const d of sseData(bytes())) out.push(d);
  return out;
}

describe("sseData", () => {
  it.each([
    ["one chunk", ['data: {"a":1}\n\ndata: [DONE]\n\n'], ['{"a":1}', "[DONE]"]],
    ["split mid-event", ['data: {"a"', ":1}\n", "\ndata: [DONE]\n\n"], ['{"a":1}', "[DONE]"]],
    ["CRLF split across chunks", ["data: x\r", "\n\r\ndata: y\r\n\r\n"], ["x", "y"]],
    ["no space after colon, comments ignored", [": ping\n\ndata:x\n\n"], ["x"]],
    ["multi-line data", ["data: a\ndata: b\n\n"], ["a\nb"]],
    ["trailing event without blank line", ["data: last"], ["last"]],
  ])("%s", async (_name, parts, expected) => {
    expect(await collect(parts)).toEqual(expected);
  });

  it("reassembles a UTF-8 character split across byte chunks", async () => {
    const bytes = new TextEncoder().encode("data: \u20ac\n\n");
    async function* split() {
      yield bytes.slice(0, 7);
      yield bytes.slice(7);
    }
    const out: string[] = [];
    for await (const d of sseData(split())) out.push(d);
    expect(out).toEqual(["\u20ac"]);
  });
});
