import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { BisectBundle } from "../../src/core/bisect/bundle";
import { trajectoryIdsAbsentReason } from "../../src/core/formats/idsAbsent";
import { chooseTokenizerFor } from "../../src/core/tokenizer/chooseTokenizer";
import { flattenSegments } from "../../src/core/trajectory/flatten";
import type { Trajectory } from "../../src/core/trajectory/types";
import { SERVER_DEFAULTS } from "../configDefaults";
import { buildTokenizerCatalog } from "../tokenizers/catalog";
import { resolveTokenizerDir } from "../tokenizers/loadTokenizer";
import type { BisectInput } from "./runBisect";

/** The fixed ids of a trajectory, its trained mask, its sampled lane and sampling params. */
export function bisectTargetOf(
  t: Trajectory,
): Pick<BisectInput, "ids" | "mask" | "sampled" | "samplingParams"> {
  const flat = flattenSegments(t.segments);
  return {
    ids: flat.tokenIds,
    mask: flat.lossMask,
    sampled: flat.logprobs,
    samplingParams: t.samplingParams ?? {},
  };
}

/**
 * Why a row cannot be bisected whatever is asked (its `mask` as bisectTargetOf gives it): it
 * holds text only (no ids to rescore: said as the file's writer leaves it), or trains no token.
 */
export function bisectRefusal(t: Trajectory, mask: readonly number[]): string | undefined {
  const textOnly = trajectoryIdsAbsentReason(t);
  if (textOnly !== undefined) return `no token ids to rescore: ${textOnly}`;
  if (!mask.includes(1)) return "no trained token (loss mask 1) to compare";
  return undefined;
}

const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json"];

/**
 * The tokenizer the row's ids are read with (the one rule: docs/format.md) and the sha256 of its
 * files (tokenizer.json, then tokenizer_config.json, each length-prefixed), or why there is none.
 */
export async function tokenizerFacts(t: Trajectory): Promise<BisectBundle["tokenizer"]> {
  const catalog = buildTokenizerCatalog(SERVER_DEFAULTS.tokenizer);
  const names = catalog.list.tokenizers.map((x) => x.name);
  const choice = chooseTokenizerFor(t, {
    picked: undefined,
    names,
    fallback: catalog.list.default,
  });
  try {
    const dir = resolveTokenizerDir(catalog.resolve(choice.name) ?? choice.name);
    const hash = createHash("sha256");
    for (const file of TOKENIZER_FILES) {
      const bytes = await readFile(join(dir, file));
      hash.update(`${file}:${bytes.length}:`).update(bytes);
    }
    return { name: choice.name, sha256: hash.digest("hex") };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { name: choice.name, unchecked: `no tokenizer files to hash: ${why}` };
  }
}
