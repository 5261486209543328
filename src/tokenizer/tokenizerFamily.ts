import { familyById, familyOfName, familyOfTemplate } from "../core/families/families";
import type { Family } from "../core/families/types";
import { isRecord } from "../core/isRecord";

// Which family a tokenizer folder belongs to and how it renders chat, shared by the library-backed
// tokenizer (hfTokenizer.ts) and the compact one (compactTokenizerFiles.ts).

/** The template source a folder ships (config string, its `tool_use`/`default` entries, or the file). */
function templateSource(config: Record<string, unknown>, file: string | undefined): string {
  if (file !== undefined) return file;
  const raw = config.chat_template;
  if (typeof raw === "string") return raw;
  if (Array.isArray(raw)) {
    return raw
      .map((e: unknown) => (isRecord(e) && typeof e.template === "string" ? e.template : ""))
      .join("\n");
  }
  return "";
}

/**
 * The family of a tokenizer: a family's short name (`llama3_1`) says it; else the template's
 * markers do (a local HF folder); else, for a folder with no template, its path's name
 * (`…/tokenizer-gptoss/models`). Undefined when none does.
 */
export function familyOfTokenizer(
  id: string,
  config: Record<string, unknown>,
  chatTemplate: string | undefined,
): Family | undefined {
  const source = templateSource(config, chatTemplate);
  // A folder that ships no template at all (the gpt-oss package) is known by its path's name.
  return (
    familyById(id) ??
    familyOfTemplate(source).family ??
    (source === "" ? familyOfName(id) : undefined)
  );
}

/** The family's rendering replaces a template that cannot render tools (or a missing one). */
export function familyRenderer(
  family: Family | undefined,
  config: Record<string, unknown>,
  file: string | undefined,
) {
  const source = templateSource(config, file);
  if (!family?.rendering || source.includes("tools")) return undefined;
  return family.rendering.render;
}
