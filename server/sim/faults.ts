import { seededRandom } from "../../src/core/random";
import type { FaultOptions } from "./options";

export type FaultKind =
  | "none"
  | "503"
  | "500"
  | "drop"
  | "stall"
  | "malformed"
  | "abort-before-prefill";

/**
 * Draws one fault per `/generate` call from a stream seeded by `faults.seed`, so a run with the same
 * seed and the same arrival order hits the same faults.
 */
export function createFaultPicker(faults: FaultOptions): () => FaultKind {
  const random = seededRandom(faults.seed);
  const table: ReadonlyArray<readonly [FaultKind, number]> = [
    ["503", faults.rate503],
    ["500", faults.rate500],
    ["drop", faults.rateDrop],
    ["stall", faults.rateStall],
    ["malformed", faults.rateMalformed],
    ["abort-before-prefill", faults.rateAbortBeforePrefill],
  ];
  return () => {
    const u = random();
    let edge = 0;
    for (const [kind, rate] of table) {
      edge += rate;
      if (u < edge) return kind;
    }
    return "none";
  };
}
