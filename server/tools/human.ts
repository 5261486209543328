import type { ToolDefinition } from "./types";

/** A tool whose reply the researcher types in the browser while the episode waits. */
export const humanTool: ToolDefinition = {
  name: "ask_human",
  description: "Ask the human researcher a question and wait for their answer.",
  parameters: {
    type: "object",
    properties: { question: { type: "string", description: "The question to ask." } },
    required: ["question"],
  },
  timeoutMs: 10 * 60_000,
  async run(args, context) {
    const question = typeof args.question === "string" ? args.question : JSON.stringify(args);
    return context.askHuman(question, context.signal);
  },
};
