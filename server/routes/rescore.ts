import { Hono } from "hono";
import { z } from "zod";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { lineWithLane } from "../../src/core/formats/laneRecord";
import { laneInfoToWire } from "../../src/core/formats/lanesWire";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import type { FormatId } from "../../src/core/formats/types";
import { type IdsOnly, TOKENIZER_REASON_TEXT } from "../../src/core/tokenizer/chooseTokenizer";
import { logprobLaneProblem } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";
import type { FamilyVerdict } from "../rescore/familyGuard";
import { RESCORED_LANE, rescoreInfo, tokenIdsOf } from "../rescore/rescoreTrajectory";
import { SglangContextLengthError, SglangError } from "../sglang/errors";
import type { RescoreResult } from "../sglang/rescore";
import type { SglangClient } from "../sglang/sglangClient";
import { findTrajectory } from "../store/findTrajectory";
import { readJsonBody } from "./readJsonBody";

/** `force`: rescore even where the upstream's model family does not match the ids. */
const force = z.boolean().optional();

/** What to rescore: a live or stored episode, one record of a file (a row of it), or raw ids. */
export const rescoreBodySchema = z.union([
  z.object({ episodeId: z.string().min(1), force }),
  z.object({
    /** One JSONL record of any supported format, as text or parsed. */
    record: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
    /** Row inside a group record (atropos), 0 otherwise. */
    row: z.int().nonnegative().default(0),
    force,
  }),
  z.object({
    ids: z.array(z.int().nonnegative()).min(1),
    temperature: z.number().nonnegative().optional(),
    force,
  }),
]);

export interface RescoreRoutesOptions {
  readonly sglang: Pick<SglangClient, "rescore">;
  /** The live trajectory of a running episode, or undefined. */
  readonly liveTrajectory: (id: string) => Trajectory | undefined;
  /** A finished episode's stored rollout-lens/v1 object, or undefined. */
  readonly findStored: (id: string) => Promise<unknown | undefined>;
  /** The family check of the ids against the upstream's model (docs/mismatch.md#the-family-guard). */
  readonly guard?: (t: Trajectory | IdsOnly) => Promise<FamilyVerdict>;
  /** Stores a finished episode again with the lane added (docs/format.md#added-lanes). */
  readonly persist?: (t: Trajectory) => Promise<void>;
}

export type Found =
  | {
      ok: true;
      trajectory: Trajectory;
      line?: { text: string; row: number; format: FormatId };
    }
  | { ok: false; status: 400 | 404; error: string };

function familyWire(verdict: FamilyVerdict | undefined) {
  if (verdict === undefined) return undefined;
  const { name, reason } = verdict.ids;
  const ids = name === "" ? null : { name, reason, why: TOKENIZER_REASON_TEXT[reason] };
  return {
    status: verdict.status,
    upstream: verdict.upstream ?? null,
    ids,
    message: verdict.message,
  };
}

/**
 * `POST /api/rescore` → `{lane, info, tokens, family, persisted?, record?}` (docs/mismatch.md).
 * A family mismatch is a 409 unless `force`; a lane that cannot be logprobs a 502; the upstream
 * call is aborted when the client goes away.
 */
export function rescoreRoutes(options: RescoreRoutesOptions) {
  const app = new Hono();
  app.post("/", async (c) => {
    const body = await readJsonBody(c, rescoreBodySchema);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const v = body.value;
    const signal = c.req.raw.signal;
    const found: Found | { ok: true; ids: number[]; temperature?: number } =
      "ids" in v
        ? { ok: true, ids: v.ids, temperature: v.temperature }
        : "episodeId" in v
          ? await episode(options, v.episodeId)
          : record(v.record, v.row);
    if (!found.ok) return c.json({ error: found.error }, found.status);
    const t = "trajectory" in found ? found.trajectory : undefined;
    const inputIds = t ? tokenIdsOf(t) : "ids" in found ? found.ids : [];
    const verdict = await options.guard?.(t ?? { segments: [{ tokenIds: inputIds }] });
    const family = familyWire(verdict);
    if (verdict?.status === "mismatch" && v.force !== true) {
      const error = `family mismatch: ${verdict.message}; rescoring would give a lane of nonsense (send "force": true to rescore anyway)`;
      return c.json({ error, family }, 409);
    }
    let result: RescoreResult;
    try {
      result = await options.sglang.rescore(
        {
          inputIds,
          temperature: t
            ? finite(t.samplingParams?.temperature)
            : "ids" in found
              ? found.temperature
              : undefined,
          samplingSeed: finite(t?.samplingParams?.sampling_seed),
        },
        { signal },
      );
    } catch (error) {
      if (error instanceof SglangContextLengthError) return c.json({ error: error.message }, 400);
      if (error instanceof SglangError) return c.json({ error: error.message }, 502);
      throw error;
    }
    const problem = logprobLaneProblem(result.lane);
    if (problem !== undefined) {
      return c.json({ error: `the upstream's lane was rejected: ${problem}`, family }, 502);
    }
    const info = rescoreInfo(result);
    const answer = {
      lane: result.lane,
      info: laneInfoToWire(info),
      tokens: result.lane.length,
      family,
    };
    if (t === undefined) return c.json(answer);
    if ("episodeId" in v) {
      const persisted = await persistLane(options, v.episodeId, t, result.lane, info);
      return c.json({ ...answer, persisted });
    }
    if ("line" in found && found.line !== undefined) {
      const { format } = found.line;
      const lanes = Array.from({ length: found.line.row + 1 }, (_, i) =>
        i === found.line?.row ? result.lane : undefined,
      );
      return c.json({
        ...answer,
        record: lineWithLane(found.line.text, format, RESCORED_LANE, lanes, info),
      });
    }
    return c.json(answer);
  });
  return app;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A finished episode gets its lane stored (a live one cannot yet: it is still being written). */
async function persistLane(
  options: RescoreRoutesOptions,
  id: string,
  t: Trajectory,
  lane: (number | null)[],
  info: ReturnType<typeof rescoreInfo>,
): Promise<boolean> {
  if (options.persist === undefined || options.liveTrajectory(id)?.status === "running") {
    return false;
  }
  const lanes = { ...t.logprobLanes, [RESCORED_LANE]: lane };
  const infos = { ...t.logprobLaneInfo, [RESCORED_LANE]: info };
  await options.persist({ ...t, logprobLanes: lanes, logprobLaneInfo: infos });
  return true;
}

/** The trajectory of a live or stored episode, or why there is none (also the bisect route's). */
export async function episode(
  options: Pick<RescoreRoutesOptions, "liveTrajectory" | "findStored">,
  id: string,
): Promise<Found> {
  const found = await findTrajectory(options, id);
  if (found.kind === "unknown") return { ok: false, status: 404, error: `no episode "${id}"` };
  if (found.kind === "unreadable") {
    const { field, message } = found.error;
    return { ok: false, status: 400, error: `record${field ? ` ${field}` : ""}: ${message}` };
  }
  if (!found.isLive && found.trajectory.segments.length === 0) {
    return { ok: false, status: 400, error: "row 0: no token ids to rescore (a text-only record)" };
  }
  return { ok: true, trajectory: found.trajectory };
}

/** Row `row` of one record (text or parsed), or why it cannot be scored (also the bisect route's). */
export function record(
  value: string | Readonly<Record<string, unknown>> | unknown,
  row: number,
): Found {
  const text = typeof value === "string" ? value : stringifyJsonLine(value);
  const read = readRolloutLine(text, 1);
  if (read.kind === "blank") return { ok: false, status: 400, error: "record: empty" };
  if (read.kind === "error") {
    const { field, message } = read.error;
    return { ok: false, status: 400, error: `record${field ? ` ${field}` : ""}: ${message}` };
  }
  const trajectory = read.trajectories[row];
  if (!trajectory) {
    return {
      ok: false,
      status: 400,
      error: `row: ${row} is out of range (the record has ${read.trajectories.length})`,
    };
  }
  if (trajectory.segments.length === 0) {
    return {
      ok: false,
      status: 400,
      error: `row ${row}: no token ids to rescore (a text-only record)`,
    };
  }
  return { ok: true, trajectory, line: { text, row, format: read.format } };
}
