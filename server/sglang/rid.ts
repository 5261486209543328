import { randomBytes } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
/** Every generated rid has exactly this many characters. */
export const RID_LENGTH = 32;

/**
 * A fresh request id: `rl` + 30 random base32 characters (150 bits). SGLang's scheduler matches
 * `/abort_request` rids by *prefix* (`ep1` also hits `ep10`), so ids must be prefix-free; ids of one
 * fixed width are prefix-free by construction, and 150 random bits make collisions negligible.
 * No `_`: SGLang derives batch item ids as `<rid>_<i>`.
 */
export function newRid(): string {
  const bytes = randomBytes(RID_LENGTH - 2);
  let out = "rl";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}
