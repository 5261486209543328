import { describe, expect, it } from "vitest";
import { CUT_SHORT_HINT, parseJsonLine, stringifyJsonLine } from "./jsonLine";

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

describe("a line cut short says so", () => {
  const whole = '{"tokens":[1,2,3],"response":"hello world","reward":NaN,"meta":{"k":"v"}}';
  // Every cut of a real line: inside a number, a string, a nested object, after a comma.
  const cuts = [3, 12, 15, 25, 40, 52, 60, whole.length - 1].map((n) => whole.slice(0, n));
  it.each(cuts)("%s", (text) => {
    const got = parseJsonLine(text);
    expect(got.ok).toBe(false);
    if (!got.ok) expect(got.message).toContain(CUT_SHORT_HINT);
  });

  const wrongInside = ['{"a":1,,"b":2}', '{"a":Nan}', '{"a":1} trailing', "[1,2]]"];
  it.each(wrongInside)("%s: a bad character inside is not called cut short", (text) => {
    const got = parseJsonLine(text);
    expect(got.ok).toBe(false);
    if (!got.ok) expect(got.message).not.toContain(CUT_SHORT_HINT);
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
