import { Hono } from "hono";
import { z } from "zod";
import { KNOB_NAMES } from "../../src/core/bisect/knobs";
import { bisectTable } from "../../src/core/bisect/table";
import type { Trajectory } from "../../src/core/trajectory/types";
import { bisectRefusal, bisectTargetOf, tokenizerFacts } from "../bisect/bisectTarget";
import { type BisectUpstreams, runBisect } from "../bisect/runBisect";
import { type FamilyVerdict, refusalText } from "../rescore/familyGuard";
import { readJsonBody } from "./readJsonBody";
import { episode, record } from "./rescore";

const knobsSchema = z.array(z.enum(KNOB_NAMES)).min(1).optional();

const settings = {
  knobs: knobsSchema,
  baseline: z.enum(["sampled", "reference", "auto"]).default("auto"),
  batch_size: z.int().min(2).max(256).default(8),
  top_logprobs: z.int().min(1).max(1000).default(20),
  decode_max_tokens: z.int().min(1).max(4096).default(256),
};

/**
 * What to bisect: an episode (`episodeId`), or one row of a record (`record`, `row`), with the
 * knobs' options (docs/bisect.md#in-the-app). One object, so an error names its field.
 */
export const bisectBodySchema = z
  .strictObject({
    episodeId: z.string().min(1).optional(),
    /** One JSONL record of any supported format, as text or parsed. */
    record: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    /** Row inside a group record (atropos), 0 otherwise. */
    row: z.int().nonnegative().default(0),
    /** Run even where the upstream's model family does not match the ids. */
    force: z.boolean().optional(),
    ...settings,
  })
  .refine((v) => (v.episodeId === undefined) !== (v.record === undefined), {
    message: 'give "episodeId" or "record" (one of them)',
  });

export interface BisectRoutesOptions {
  /** The upstreams from the server's config (b only when it was started with two or more). */
  readonly upstreams: () => BisectUpstreams;
  readonly liveTrajectory: (id: string) => Trajectory | undefined;
  readonly findStored: (id: string) => Promise<unknown | undefined>;
  /** The family check of the ids against the upstream's model (docs/mismatch.md#the-family-guard). */
  readonly guard?: (t: Trajectory) => Promise<FamilyVerdict>;
  /** The same check against upstream b, when there is one (asked only when the upstream knob runs). */
  readonly guardB?: (t: Trajectory) => Promise<FamilyVerdict>;
}

/** Why the family check refuses the run (a on every run, b when the upstream knob runs), if it does. */
async function familyRefusal(
  options: BisectRoutesOptions,
  t: Trajectory,
  usesB: boolean,
  isForced: boolean,
): Promise<string | undefined> {
  if (isForced) return undefined;
  const a = await options.guard?.(t);
  if (a?.status === "mismatch") return refusalText(a, 'send "force": true');
  const b = usesB ? await options.guardB?.(t) : undefined;
  if (b?.status === "mismatch") return `upstream b: ${refusalText(b, 'send "force": true')}`;
  return undefined;
}

/**
 * `POST /api/bisect` → `{bundle, rows}`: the row's fixed ids rescored once per knob through the
 * server's SGLang client; the upstreams come from the server's config, never from the browser.
 * The upstream calls stop when the client goes away.
 */
export function bisectRoutes(options: BisectRoutesOptions) {
  const app = new Hono();
  app.post("/", async (c) => {
    const body = await readJsonBody(c, bisectBodySchema);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const v = body.value;
    const found =
      v.episodeId !== undefined ? await episode(options, v.episodeId) : record(v.record, v.row);
    if (!found.ok) return c.json({ error: found.error }, found.status);
    const t = found.trajectory;
    const target = bisectTargetOf(t);
    const cannot = bisectRefusal(t, target.mask);
    if (cannot !== undefined) return c.json({ error: cannot }, 400);
    const knobs = v.knobs ?? KNOB_NAMES;
    const refused = await familyRefusal(options, t, knobs.includes("upstream"), v.force === true);
    if (refused !== undefined) return c.json({ error: refused }, 409);
    const up = options.upstreams();
    try {
      const bundle = await runBisect(
        {
          ...target,
          source:
            v.episodeId !== undefined
              ? { episode: v.episodeId, trajectory_id: t.id }
              : { row: v.row, trajectory_id: t.id },
          knobs,
          baseline: v.baseline,
          options: {
            batch_size: v.batch_size,
            top_logprobs: v.top_logprobs,
            decode_max_tokens: v.decode_max_tokens,
          },
          tokenizer: await tokenizerFacts(t),
        },
        up,
        c.req.raw.signal,
      );
      return c.json({ bundle, rows: bisectTable(bundle) });
    } catch (error) {
      if (c.req.raw.signal.aborted) throw error;
      return c.json({ error: error instanceof Error ? error.message : String(error) }, 400);
    }
  });
  return app;
}
