import { isRecord } from "../isRecord";
import type { ToolCall } from "../trajectory/types";
import { callId, type ToolCallParser } from "./types";

/**
 * DeepSeek-V3 tool calls, as its chat template writes them: inside
 * `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`, each call is
 * `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>`.
 */
const CALL =
  /<｜tool▁call▁begin｜>([^<]*?)<｜tool▁sep｜>([^\n<]*)\n```(?:json)?\n([\s\S]*?)\n```<｜tool▁call▁end｜>/g;

export const deepseekParser: ToolCallParser = {
  name: "deepseek_v3",
  parse(text) {
    return [...text.matchAll(CALL)].map((match, i): ToolCall => {
      const id = callId(i);
      const name = (match[2] ?? "").trim();
      const raw = match[3] ?? "";
      const span: readonly [number, number] = [match.index, match.index + match[0].length];
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { id, name, arguments: {}, raw, span, error: `invalid JSON: ${reason}` };
      }
      if (!isRecord(parsed)) {
        return { id, name, arguments: {}, raw, span, error: "the arguments are not a JSON object" };
      }
      return { id, name, arguments: parsed, raw, span };
    });
  },
};
