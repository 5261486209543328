import { describe, expect, it } from "vitest";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";

describe("parseJsonLine", () => {
  const good: { text: string; want: unknown }[] = [
    { text: '{"a":1}', want: { a: 1 } },
    { text: '{"a":NaN}', want: { a: Number.NaN } },
    { text: '{"a":[Infinity,-Infinity, NaN]}', want: { a: [Infinity, -Infinity, Number.NaN] } },
    {
      text: '{"s":"NaN and Infinity stay text","x":NaN}',
      want: { s: "NaN and Infinity stay text", x: Number.NaN },
    },
    { text: '{"s":"quote \\" NaN","x":-Infinity}', want: { s: 'quote " NaN', x: -Infinity } },
  ];
  it.each(good)("parses $text", ({ text, want }) => {
    const got = parseJsonLine(text);
    expect(got).toEqual({ ok: true, value: want });
  });

  const bad = [
    '{"a":1',
    '{"a":Nan}',
    '{"a":NaN',
    "NaN NaN",
    '{"a":"\\u0000rollout-lens:NaN", "b": NaN}',
  ];
  it.each(bad)("rejects %s with a message", (text) => {
    const got = parseJsonLine(text);
    expect(got.ok).toBe(false);
    if (!got.ok) expect(got.message).toMatch(/^invalid JSON: /);
  });
});

describe("stringifyJsonLine", () => {
  it("writes non-finite numbers as Python does and reads them back", () => {
    const value = { reward: Number.NaN, lp: [Infinity, -Infinity, -0.5, -0], s: "NaN" };
    const text = stringifyJsonLine(value);
    expect(text).toBe('{"reward":NaN,"lp":[Infinity,-Infinity,-0.5,-0.0],"s":"NaN"}');
    expect(parseJsonLine(text)).toEqual({ ok: true, value });
  });
});
