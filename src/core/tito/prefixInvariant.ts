/** One logged `/generate` call: the ids it was sent and the ids it returned. */
export interface LoggedCall {
  readonly inputIds: readonly number[];
  readonly outputIds: readonly number[];
}

export type PrefixCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Index of the first call whose input does not extend the previous call's input + output. */
      readonly callIndex: number;
      /** Token index inside that call's input_ids where the expected prefix first differs. */
      readonly position: number;
      readonly expected: number;
      /** undefined when the input ends before `position`. */
      readonly actual: number | undefined;
      readonly message: string;
    };

/**
 * Checks the prefix rule of docs/tito.md: every `input_ids[k+1]` starts with `input_ids[k] + output_ids[k]`.
 * Reports the first violating call; positions are token indices of that call's input_ids.
 */
export function checkPrefixInvariant(calls: readonly LoggedCall[]): PrefixCheck {
  for (let k = 1; k < calls.length; k++) {
    const prev = calls[k - 1];
    const cur = calls[k];
    if (!prev || !cur) continue;
    const prevLen = prev.inputIds.length;
    const want = prevLen + prev.outputIds.length;
    for (let i = 0; i < want; i++) {
      const expected = (i < prevLen ? prev.inputIds[i] : prev.outputIds[i - prevLen]) ?? -1;
      const actual = cur.inputIds[i];
      if (actual !== expected) {
        const where = i < prevLen ? "input" : "output";
        const message =
          actual === undefined
            ? `call ${k}: input_ids has ${cur.inputIds.length} tokens, shorter than call ${k - 1}'s input + output (${want})`
            : `call ${k}: input_ids[${i}] is ${actual} but call ${k - 1}'s ${where} has ${expected} there`;
        return { ok: false, callIndex: k, position: i, expected, actual, message };
      }
    }
  }
  return { ok: true };
}
