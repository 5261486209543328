import { z } from "zod";
import type { ChatTemplateOptions, ToolSchema } from "../tokenizer/types";
import type { Trajectory } from "../trajectory/types";

/** OpenAI/HF tool schemas a record may keep in `metadata.tools` (rendered into the system turn). */
const toolsSchema = z.array(
  z.object({
    type: z.literal("function"),
    function: z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()),
    }),
  }),
);

/** The tool schemas a record keeps in `metadata.tools`, when it keeps valid ones. */
export function recordedTools(t: Trajectory): ToolSchema[] | undefined {
  const parsed = toolsSchema.safeParse(t.metadata.tools);
  return parsed.success && parsed.data.length > 0 ? parsed.data : undefined;
}

/**
 * The tool names a record keeps in `metadata.tools`: schemas (what live episodes write, so a
 * template re-renders their prompt) give their function names; older records keep the names
 * themselves. Undefined when the field is neither.
 */
export function recordedToolNames(t: Trajectory): string[] | undefined {
  const tools = t.metadata.tools;
  if (!Array.isArray(tools)) return undefined;
  const names: string[] = [];
  for (const tool of tools) {
    if (typeof tool === "string") names.push(tool);
    else {
      const one = toolsSchema.element.safeParse(tool);
      if (!one.success) return undefined;
      names.push(one.data.function.name);
    }
  }
  return names;
}

/**
 * The template options a record implies: its tools, and `enable_thinking` when its metadata keeps
 * that flag (live episodes do), so the generation prompt is rendered as it was sent.
 */
export function recordedTemplateOptions(t: Trajectory): ChatTemplateOptions {
  const tools = recordedTools(t);
  const thinking = t.metadata.enable_thinking;
  return {
    ...(tools ? { tools } : {}),
    ...(typeof thinking === "boolean" ? { enableThinking: thinking } : {}),
  };
}
