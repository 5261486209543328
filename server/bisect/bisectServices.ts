import type { IdsOnly } from "../../src/core/tokenizer/chooseTokenizer";
import type { FitTokenizer } from "../../src/core/tokenizer/idsFit";
import type { Trajectory } from "../../src/core/trajectory/types";
import { type FamilyVerdict, lazyFamilyGuard } from "../rescore/familyGuard";
import { SglangClient } from "../sglang/sglangClient";
import type { BisectUpstreams } from "./runBisect";

type Guard = (t: Trajectory | IdsOnly) => Promise<FamilyVerdict>;

/** The bisect lab's upstreams in the server, their family checks, and their closing. */
export interface BisectServices {
  /** `a` always; `b` when the server has two or more upstreams (clients made on first use). */
  upstreams(): BisectUpstreams;
  /**
   * With two upstreams, the family check of each against its own `/model_info`; with one, none
   * here (the server's shared check is upstream a's).
   */
  readonly guards?: { readonly a: Guard; readonly b: Guard };
  /** Closes the clients it made (the shared one belongs to the server). */
  close(): Promise<void>;
}

/**
 * The bisect lab's upstreams (docs/bisect.md#in-the-app): one configured upstream is `a` through
 * the shared client; with two or more, the first is `a` and the second `b`, each with a client of
 * its own, so each knob asks exactly the upstream it names.
 */
export function createBisectServices(
  urls: readonly string[],
  shared: SglangClient,
  names: readonly string[],
  loadFit: (name: string) => Promise<FitTokenizer>,
): BisectServices {
  const [a, b] = urls;
  const own = new Map<string, SglangClient>();
  const clientOf = (url: string) => {
    let client = own.get(url);
    if (client === undefined) {
      client = new SglangClient({ upstreams: [url], health: { intervalMs: 0, reprobeMs: 60_000 } });
      own.set(url, client);
    }
    return client;
  };
  const isPair = a !== undefined && b !== undefined;
  return {
    upstreams: () =>
      isPair
        ? { a: { url: a, client: clientOf(a) }, b: { url: b, client: clientOf(b) } }
        : { a: { url: a ?? "", client: shared } },
    ...(isPair
      ? {
          guards: {
            a: lazyFamilyGuard(() => clientOf(a).modelInfo(), names, loadFit),
            b: lazyFamilyGuard(() => clientOf(b).modelInfo(), names, loadFit),
          },
        }
      : {}),
    async close() {
      const clients = [...own.values()];
      own.clear();
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
