import type { IdsOnly } from "../../src/core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { ModelInfoWire } from "../../src/core/wire/sglang";
import { createFamilyGuard, type FamilyVerdict, upstreamModelOf } from "../rescore/familyGuard";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { loadDriftTokenizer } from "../tokenizers/compactTokenizers";

/** An upstream and what its `/model_info` said (undefined: it has none). */
export interface ProbedUpstream {
  readonly url: string;
  readonly info: ModelInfoWire | undefined;
}

/**
 * The family guard of `rescore` (docs/mismatch.md#the-family-guard) on each upstream of a bisect:
 * ids of another family would give every knob a lane of confident nonsense.
 */
export async function familyVerdicts(
  upstreams: readonly ProbedUpstream[],
  target: Trajectory | IdsOnly,
): Promise<{ readonly url: string; readonly verdict: FamilyVerdict }[]> {
  const catalog = buildTokenizerCatalog("qwen3");
  const names = catalog.list.tokenizers.map((t) => t.name);
  return Promise.all(
    upstreams.map(async (u) => {
      const guard = createFamilyGuard(upstreamModelOf(u.info, names), names, (name) =>
        loadDriftTokenizer(catalog.resolve(name) ?? name),
      );
      return { url: u.url, verdict: await guard(target) };
    }),
  );
}
