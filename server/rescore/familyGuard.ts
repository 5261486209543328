import {
  chooseTokenizer,
  chooseTokenizerFor,
  type IdsOnly,
  sameVocabulary,
  TOKENIZER_REASON_TEXT,
  type TokenizerChoice,
} from "../../src/core/tokenizer/chooseTokenizer";
import { createIdsFitCheck, type FitTokenizer } from "../../src/core/tokenizer/idsFit";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { ModelInfoWire } from "../../src/core/wire/sglang";

/**
 * Rescoring ids with a model of another family returns a lane of confident nonsense with a 200
 * (docs/mismatch.md#the-family-guard). Before any id is sent, the upstream's model (its
 * `/model_info`) is mapped to a family and the ids are checked against that family's tokenizer
 * (vocabulary size, the signature token among the first ids) and against the tokenizer the record
 * names. A mismatch is refused unless forced; a model that names no known family is reported as
 * not checked, never as a match.
 */

/** What the upstream says it serves. */
export interface UpstreamModel {
  /** `tokenizer_path`, else `model_path`; undefined when `/model_info` did not answer. */
  readonly name: string | undefined;
  /** The catalog tokenizer of that name's family, when one matches. */
  readonly family: string | undefined;
  /** The simulator serving each request in its ids' family (`rollout-lens sim` with no --tokenizer). */
  readonly isPerRequest: boolean;
}

/** The family check of one trajectory: `refused` stops the rescore unless forced. */
export interface FamilyVerdict {
  readonly status: "match" | "mismatch" | "unchecked";
  /** The tokenizer the ids are read with, and the rule that chose it. */
  readonly ids: TokenizerChoice;
  readonly upstream: string | undefined;
  readonly message: string;
}

/** The family the upstream's `/model_info` names (the catalog's name for it), if any. */
export function upstreamModelOf(
  info: ModelInfoWire | undefined,
  names: readonly string[],
): UpstreamModel {
  const name = info ? (info.tokenizer_path ?? info.model_path) : undefined;
  const isPerRequest = info?.simulator_tokenizer_per_request === true;
  if (name === undefined || name === null)
    return { name: undefined, family: undefined, isPerRequest };
  const choice = chooseTokenizer({
    picked: undefined,
    recorded: [info?.tokenizer_path ?? undefined, info?.model_path],
    firstIds: [],
    names,
    fallback: "",
  });
  const isNamed = choice.reason === "recorded" || choice.reason === "recorded-related";
  return { name, family: isNamed ? choice.name : undefined, isPerRequest };
}

/** Says which rule chose, in words. */
function choiceText(choice: TokenizerChoice): string {
  return choice.name === ""
    ? "the ids' family is unknown (the record names none and its first ids match no family)"
    : `the ids are read as ${choice.name} (${TOKENIZER_REASON_TEXT[choice.reason]})`;
}

/**
 * The guard of one upstream: each trajectory (or raw ids, as one segment) gets a verdict.
 * `loadFit` loads the catalog tokenizer of the upstream's family (once).
 */
export function createFamilyGuard(
  upstream: UpstreamModel,
  names: readonly string[],
  loadFit: (name: string) => Promise<FitTokenizer>,
): (t: Trajectory | IdsOnly) => Promise<FamilyVerdict> {
  const fit =
    upstream.family === undefined ? undefined : loadFit(upstream.family).then(createIdsFitCheck);
  return async (t) => {
    const ids =
      "metadata" in t
        ? chooseTokenizerFor(t, { picked: undefined, names, fallback: "" })
        : chooseTokenizer({
            picked: undefined,
            recorded: [],
            firstIds: t.segments[0]?.tokenIds ?? [],
            names,
            fallback: "",
          });
    const verdict = (status: FamilyVerdict["status"], message: string): FamilyVerdict => ({
      status,
      ids,
      upstream: upstream.family,
      message,
    });
    if (upstream.isPerRequest) {
      return verdict(
        "match",
        `the simulator serves each request in its ids' family; ${choiceText(ids)}`,
      );
    }
    if (upstream.family === undefined || fit === undefined) {
      const what =
        upstream.name === undefined
          ? "the upstream answered no /model_info"
          : `the upstream's model "${upstream.name}" names no family this server knows`;
      return verdict("unchecked", `family not checked: ${what}`);
    }
    const served = `the upstream serves ${upstream.name} (${upstream.family})`;
    const misfit = (await fit)(t);
    if (misfit !== undefined) return verdict("mismatch", `${served}, but ${misfit.message}`);
    // The record's name or the ids' signature chose a tokenizer of another vocabulary.
    if (ids.name !== "" && !sameVocabulary(ids.name, upstream.family)) {
      return verdict("mismatch", `${served}, but ${choiceText(ids)}`);
    }
    const evidence =
      ids.name === ""
        ? "the ids fit its vocabulary (no family signature to compare)"
        : choiceText(ids);
    return verdict("match", `${served}; ${evidence}`);
  };
}

/** The refusal a mismatch becomes, naming the override. */
export function refusalText(verdict: FamilyVerdict, override: string): string {
  return `family mismatch: ${verdict.message}; rescoring would give a lane of nonsense (${override} to rescore anyway)`;
}

/**
 * The guard of a long-lived client (the server's): `/model_info` asked on first use and kept;
 * asked again next time when it failed (the upstream may come back).
 */
export function lazyFamilyGuard(
  modelInfo: () => Promise<ModelInfoWire>,
  names: readonly string[],
  loadFit: (name: string) => Promise<FitTokenizer>,
): (t: Trajectory | IdsOnly) => Promise<FamilyVerdict> {
  let guard: Promise<(t: Trajectory | IdsOnly) => Promise<FamilyVerdict>> | undefined;
  return async (t) => {
    guard ??= modelInfo().then(
      (info) => createFamilyGuard(upstreamModelOf(info, names), names, loadFit),
      () => {
        guard = undefined;
        return createFamilyGuard(upstreamModelOf(undefined, names), names, loadFit);
      },
    );
    return (await guard)(t);
  };
}
