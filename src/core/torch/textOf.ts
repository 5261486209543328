import { utf8Decode } from "../tokenizer/utf8Text";

/*
 * UTF-8 text of bytes: the platform's TextDecoder where there is one (browser, worker, Node),
 * else the core's own decoder (core code compiles without DOM types, so it is looked up).
 */
type Decoder = { decode(bytes: Uint8Array): string };
const Native = (globalThis as { TextDecoder?: new () => Decoder }).TextDecoder;
const native: Decoder | undefined = Native ? new Native() : undefined;

export function textOf(bytes: Uint8Array): string {
  return native ? native.decode(bytes) : utf8Decode(bytes);
}
