/**
 * The ids a tokenizer starts and ends sequences with, from tokenizer_config.json: one rule for
 * every Tokenizer implementation (the library-backed one and the compact one).
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A config token is either a plain string or an AddedToken object `{content, ...}`. */
export function configTokenContent(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (isRecord(value) && typeof value.content === "string") return value.content;
  return undefined;
}

/** Stop ids a chat model ends a turn with; generation_config.json (not loaded) is the real source. */
const KNOWN_EOS_TOKENS = [
  "<|im_end|>",
  "<|endoftext|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|end_of_text|>",
];

/**
 * EOS ids (the config's `eos_token`, then every known end-of-turn token that is a special added
 * token) and the BOS id. `idOf` is the tokenizer's piece -> id lookup (added tokens included).
 */
export function turnEndIds(
  tokenizerConfig: Record<string, unknown>,
  idOf: (content: string) => number | undefined,
  isSpecialAdded: (id: number) => boolean,
): { eosTokenIds: number[]; bosTokenId: number | undefined } {
  const lookup = (content: string | undefined) =>
    content === undefined ? undefined : idOf(content);
  const eosIds = new Set<number>();
  const configEos = lookup(configTokenContent(tokenizerConfig.eos_token));
  if (configEos !== undefined) eosIds.add(configEos);
  for (const name of KNOWN_EOS_TOKENS) {
    const tokenId = lookup(name);
    if (tokenId !== undefined && isSpecialAdded(tokenId)) eosIds.add(tokenId);
  }
  return {
    eosTokenIds: [...eosIds],
    bosTokenId: lookup(configTokenContent(tokenizerConfig.bos_token)),
  };
}
