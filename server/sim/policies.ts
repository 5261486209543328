import type { PromptView } from "./chatPrompt";
import { dialectOf } from "./dialects";
import type { PolicyName } from "./options";

/**
 * The reply a policy scripts for one turn. `turn` ends with the model's EOS; `endless` never does
 * (the engine cycles `repeat` until `max_new_tokens`). `isNonCanonical` asks the engine to emit some
 * words with a valid but non-canonical token split.
 */
export type ReplyPlan =
  | {
      readonly kind: "turn";
      readonly text: string;
      readonly isNonCanonical: boolean;
      /** The token that ends the turn (the family's, e.g. `<|eom_id|>` after a Llama 3.1 call). */
      readonly stop?: string;
    }
  | { readonly kind: "endless"; readonly text: string; readonly repeat: string };

const SYMBOLIC = /\(?\s*-?\d+(?:\.\d+)?(?:\s*[-+*/^%×÷]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+/;
const SYMBOLIC_ALL = new RegExp(SYMBOLIC.source, "g");
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/** The arithmetic a question asks for (`"12 * 7"`), from symbols or from number words; undefined if none. */
export function findExpression(question: string): string | undefined {
  const symbolic = SYMBOLIC.exec(question)?.[0];
  if (symbolic) return symbolic.replaceAll("×", "*").replaceAll("÷", "/").trim();
  const numbers = question.match(NUMBER) ?? [];
  if (numbers.length === 0) return undefined;
  if (numbers.length === 1) return numbers[0];
  const op = /times|multipl|product/i.test(question)
    ? "*"
    : /divid|quotient|\bover\b/i.test(question)
      ? "/"
      : /minus|subtract|difference|less/i.test(question)
        ? "-"
        : "+";
  return numbers.join(` ${op} `);
}

/**
 * Every symbolic expression of a question, in order (`"What is 23*19 and then 437+1?"` gives two):
 * the calculator policy calls the tool once per expression before it answers.
 */
export function findExpressions(question: string): string[] {
  const found = [...question.matchAll(SYMBOLIC_ALL)].map((m) =>
    m[0].replaceAll("×", "*").replaceAll("÷", "/").trim(),
  );
  if (found.length > 1) return found;
  const one = findExpression(question);
  return one === undefined ? [] : [one];
}

/** The first number in a tool result (`{"result": 84}` gives `84`); undefined if it has none. */
export function firstNumber(text: string): string | undefined {
  return text.match(NUMBER)?.[0];
}

function toolName(view: PromptView): string {
  return view.toolNames.includes("calculator") ? "calculator" : (view.toolNames[0] ?? "calculator");
}

/** The argument each built-in tool declares; a researcher's own tool gets `expression`. */
function toolArguments(name: string, expression: string): Record<string, string> {
  if (name === "ask_human") return { question: `What is ${expression}?` };
  if (name === "mock") return { query: expression };
  return { expression };
}

/** A call in the family's syntax; undefined when its template cannot render tools. */
function toolCall(view: PromptView, name: string, expression: string): string | undefined {
  return dialectOf(view.family).toolCall?.(name, toolArguments(name, expression));
}

function brokenToolCall(name: string, expression: string): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {"expression": ${JSON.stringify(expression)}\n</tool_call>`;
}

function think(view: PromptView, thought: string): string {
  return dialectOf(view.family).think(thought, view.isThinkingDisabled);
}

/** A turn that answers, in the family's syntax, ended by its answer stop token. */
function answerTurn(
  view: PromptView,
  thought: string,
  text: string,
  isNonCanonical = false,
): ReplyPlan {
  const dialect = dialectOf(view.family);
  return {
    kind: "turn",
    text: `${think(view, thought)}${dialect.answer(text)}`,
    isNonCanonical,
    stop: dialect.answerStop,
  };
}

/** A turn that calls `name`; a family without tools answers that it cannot. */
function callTurn(view: PromptView, thought: string, name: string, expression: string): ReplyPlan {
  const call = toolCall(view, name, expression);
  if (call === undefined) {
    return answerTurn(
      view,
      thought,
      `I cannot call tools in this chat format, so I cannot compute ${expression} exactly.`,
    );
  }
  return {
    kind: "turn",
    text: `${think(view, thought)}${call}`,
    isNonCanonical: false,
    stop: dialectOf(view.family).callStop,
  };
}

function answerFromTool(view: PromptView): ReplyPlan {
  const result = view.toolResults.at(-1) ?? "";
  const value = firstNumber(result);
  if (value === undefined) {
    return answerTurn(
      view,
      "The calculator did not return a number.",
      `The calculator returned an error: ${result}`,
    );
  }
  const values = view.toolResults.map((r) => firstNumber(r) ?? r);
  const text =
    values.length > 1
      ? `The calculator returned ${values.join(" and ")}, so the answers are ${values.join(" and ")}.`
      : `The calculator returned ${value}, so the answer is ${value}.`;
  return answerTurn(view, `The calculator returned ${values.join(" and ")}.`, text);
}

function callOrAnswer(view: PromptView): ReplyPlan {
  const expressions = findExpressions(view.question);
  if (expressions.length === 0) {
    return answerTurn(
      view,
      "There is nothing to calculate here.",
      "I could not find any numbers to calculate in your question.",
    );
  }
  const next = expressions[view.toolResults.length];
  if (next === undefined) return answerFromTool(view);
  return callTurn(
    view,
    `The user asks for ${next}. I should use the calculator tool to compute it exactly.`,
    toolName(view),
    next,
  );
}

function turn(text: string): ReplyPlan {
  return { kind: "turn", text, isNonCanonical: false };
}

function withNonCanonical(plan: ReplyPlan): ReplyPlan {
  return plan.kind === "turn" ? { ...plan, isNonCanonical: true } : plan;
}

/** Scripts the next assistant turn for `policy` from what the prompt shows. */
export function planReply(policy: PolicyName, view: PromptView): ReplyPlan {
  switch (policy) {
    case "calculator":
      return callOrAnswer(view);
    case "non-canonical":
      return withNonCanonical(callOrAnswer(view));
    case "looping": {
      const attempt = view.toolResults.length + 1;
      const expression = findExpression(view.question) ?? "1 + 1";
      return callTurn(
        view,
        `I should check this with the tool again (attempt ${attempt}).`,
        toolName(view),
        expression,
      );
    }
    case "malformed": {
      const expression = findExpression(view.question) ?? "1 + 1";
      if (view.toolResults.length === 0) {
        return turn(
          `${think(view, `I will compute ${expression} with the calculator.`)}${brokenToolCall(toolName(view), expression)}`,
        );
      }
      if (view.toolResults.length === 1) {
        return callTurn(
          view,
          "My last tool call was not valid JSON. Let me fix it.",
          toolName(view),
          expression,
        );
      }
      return answerFromTool({ ...view, toolResults: view.toolResults.slice(-1) });
    }
    case "long-winded": {
      const opening = view.isThinkingDisabled ? "" : "<think>\n";
      return {
        kind: "endless",
        text: `${opening}Let me think about "${view.question.slice(0, 200)}" very carefully.`,
        // Starts with a space and ends with a period so the pieces join canonically.
        repeat:
          " On the other hand, there are several more considerations worth spelling out before I commit to an answer, so let me go over each of them once more in detail.",
      };
    }
  }
}
