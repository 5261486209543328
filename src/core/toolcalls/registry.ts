import { deepseekParser } from "./deepseek";
import { glmParser } from "./glm";
import { harmonyParser } from "./harmony";
import { hermesParser } from "./hermes";
import { llamaJsonParser } from "./llamaJson";
import { qwenXmlParser } from "./qwenXml";
import type { ToolCallParser } from "./types";

const PARSERS: ReadonlyMap<string, ToolCallParser> = new Map([
  ["hermes", hermesParser],
  ["qwen", hermesParser],
  ["qwen_xml", qwenXmlParser],
  ["qwen-xml", qwenXmlParser],
  ["glm", glmParser],
  ["llama3_json", llamaJsonParser],
  ["deepseek_v3", deepseekParser],
  ["harmony", harmonyParser],
]);

/** Names accepted by `getToolCallParser` (aliases included). */
export const toolCallParserNames: readonly string[] = [...PARSERS.keys()];

/** The parser registered under `name` (`hermes`/`qwen`, `qwen_xml`/`qwen-xml`, `glm`, `llama3_json`,
 * `deepseek_v3`, `harmony`). */
export function getToolCallParser(name: string): ToolCallParser {
  const parser = PARSERS.get(name);
  if (!parser) {
    throw new Error(
      `unknown tool-call parser "${name}"; known parsers: ${toolCallParserNames.join(", ")}`,
    );
  }
  return parser;
}
