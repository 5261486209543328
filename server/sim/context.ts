import type { Tokenizer } from "../../src/core/tokenizer/types";
import type { FaultKind } from "./faults";
import type { SimOptions } from "./options";
import type { PrefixCache } from "./prefixCache";
import type { Registry } from "./registry";
import type { TokenizerPicker } from "./tokenizerPick";

/** Everything a simulator route needs; one per simulator instance. */
export interface SimContext {
  readonly options: SimOptions;
  /** The default (or forced) tokenizer; a /generate request's own comes from `pickTokenizer`. */
  readonly tokenizer: Tokenizer;
  readonly pickTokenizer: TokenizerPicker;
  readonly cache: PrefixCache;
  readonly registry: Registry;
  readonly pickFault: () => FaultKind;
  /** Aborted when the simulator closes, releasing stalled requests. */
  readonly closing: AbortSignal;
  readonly startedAt: number;
  isHealthy: boolean;
}
