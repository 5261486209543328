import type { PromptView } from "./chatPrompt";
import type { PolicyName } from "./options";

/**
 * The reply a policy scripts for one turn. `turn` ends with the model's EOS; `endless` never does
 * (the engine cycles `repeat` until `max_new_tokens`). `isNonCanonical` asks the engine to emit some
 * words with a valid but non-canonical token split.
 */
export type ReplyPlan =
  | { readonly kind: "turn"; readonly text: string; readonly isNonCanonical: boolean }
  | { readonly kind: "endless"; readonly text: string; readonly repeat: string };

const SYMBOLIC = /\(?\s*-?\d+(?:\.\d+)?(?:\s*[-+*/^%×÷]\s*\(?\s*-?\d+(?:\.\d+)?\s*\)?)+/;
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

/** The first number in a tool result (`{"result": 84}` gives `84`); undefined if it has none. */
export function firstNumber(text: string): string | undefined {
  return text.match(NUMBER)?.[0];
}

function toolName(view: PromptView): string {
  return view.toolNames.includes("calculator") ? "calculator" : (view.toolNames[0] ?? "calculator");
}

// Python's json.dumps spacing, which is what Hermes-style chat templates and models produce.
function toolCall(name: string, expression: string): string {
  // The argument each built-in tool declares; a researcher's own tool gets `expression`.
  const argument =
    name === "ask_human"
      ? `"question": ${JSON.stringify(`What is ${expression}?`)}`
      : name === "mock"
        ? `"query": ${JSON.stringify(expression)}`
        : `"expression": ${JSON.stringify(expression)}`;
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {${argument}}}\n</tool_call>`;
}

function brokenToolCall(name: string, expression: string): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": {"expression": ${JSON.stringify(expression)}\n</tool_call>`;
}

function think(view: PromptView, thought: string): string {
  return view.isThinkingDisabled ? "" : `<think>\n${thought}\n</think>\n\n`;
}

function answerFromTool(view: PromptView): string {
  const result = view.toolResults.at(-1) ?? "";
  const value = firstNumber(result);
  if (value === undefined) {
    return `${think(view, "The calculator did not return a number.")}The calculator returned an error: ${result}`;
  }
  return `${think(view, `The calculator returned ${value}.`)}The calculator returned ${value}, so the answer is ${value}.`;
}

function callOrAnswer(view: PromptView): string {
  const expression = findExpression(view.question);
  if (expression === undefined) {
    return `${think(view, "There is nothing to calculate here.")}I could not find any numbers to calculate in your question.`;
  }
  if (view.toolResults.length > 0) return answerFromTool(view);
  return `${think(view, `The user asks for ${expression}. I should use the calculator tool to compute it exactly.`)}${toolCall(toolName(view), expression)}`;
}

function turn(text: string, isNonCanonical = false): ReplyPlan {
  return { kind: "turn", text, isNonCanonical };
}

/** Scripts the next assistant turn for `policy` from what the prompt shows. */
export function planReply(policy: PolicyName, view: PromptView): ReplyPlan {
  switch (policy) {
    case "calculator":
      return turn(callOrAnswer(view));
    case "non-canonical":
      return turn(callOrAnswer(view), true);
    case "looping": {
      const attempt = view.toolResults.length + 1;
      const expression = findExpression(view.question) ?? "1 + 1";
      return turn(
        `${think(view, `I should check this with the tool again (attempt ${attempt}).`)}${toolCall(toolName(view), expression)}`,
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
        return turn(
          `${think(view, "My last tool call was not valid JSON. Let me fix it.")}${toolCall(toolName(view), expression)}`,
        );
      }
      return turn(answerFromTool(view));
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
