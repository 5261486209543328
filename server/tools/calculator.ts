import { all, create } from "mathjs";
import type { ToolDefinition } from "./types";

// mathjs parses and evaluates expressions without `eval`; the functions that could reach outside
// pure arithmetic (import, createUnit, evaluate/parse/compile recursion, simplify...) are disabled,
// as the mathjs security notes recommend.
if (!all) throw new Error("mathjs: the `all` factory set is missing");
const math = create(all);
const evaluate = math.evaluate;
const disabled = () => {
  throw new Error("function is disabled in the calculator");
};
math.import(
  {
    import: disabled,
    createUnit: disabled,
    evaluate: disabled,
    parse: disabled,
    compile: disabled,
    simplify: disabled,
    derivative: disabled,
    resolve: disabled,
    reviver: disabled,
  },
  { override: true },
);

const MAX_EXPRESSION_LENGTH = 1_000;

/** Evaluates an arithmetic expression; throws a readable error for anything else. */
export function calculate(expression: string): string {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new Error(`expression longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  const value: unknown = evaluate(expression);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`result is not finite (${value})`);
    return String(Number.parseFloat(value.toPrecision(15)));
  }
  if (typeof value === "boolean") return String(value);
  if (value !== null && typeof value === "object" && "toString" in value) {
    return math.format(value, { precision: 14 });
  }
  throw new Error("expression did not evaluate to a value");
}

export const calculatorTool: ToolDefinition = {
  name: "calculator",
  description: "Evaluate an arithmetic expression, e.g. 15*7 or sqrt(2)^2.",
  parameters: {
    type: "object",
    properties: {
      expression: { type: "string", description: "The expression to evaluate." },
    },
    required: ["expression"],
  },
  async run(args) {
    const expression = args.expression;
    if (typeof expression !== "string") throw new Error('argument "expression" must be a string');
    return calculate(expression);
  },
};
