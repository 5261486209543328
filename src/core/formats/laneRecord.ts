import { isRecord } from "../isRecord";
import type { LaneInfo, LaneValues } from "../trajectory/types";
import { parseJsonLine, stringifyJsonLine } from "./jsonLine";
import { type LaneInfoWire, laneInfoToWire } from "./lanesWire";
import type { FormatId } from "./types";

/**
 * Adds one lane to a record as read from a file, touching nothing else: the record keeps its
 * format and every other field. Where it goes (docs/format.md, "Logprob lanes"):
 * rollout-lens/v1, strands and a slime Sample: `logprob_lanes.NAME` (as long as the record's
 * token list) and `logprob_lane_info.NAME`; a slime dump: the same inside each `samples[i]`; an
 * atropos group: `logprob_lanes.NAME` = one array per row and one group `logprob_lane_info.NAME`.
 * `lanes[i]` is the lane of the record's i-th trajectory, undefined to leave that one without.
 */
export function addLaneToRecord(
  record: Readonly<Record<string, unknown>>,
  format: FormatId,
  name: string,
  lanes: readonly (LaneValues | undefined)[],
  info: LaneInfo | undefined,
): Record<string, unknown> {
  const infoWire = info ? laneInfoToWire(info) : undefined;
  if (format === "atropos") {
    return withLaneKeys(
      record,
      name,
      lanes.map((l) => (l ? [...l] : null)),
      infoWire,
    );
  }
  if (format === "slime" && Array.isArray(record.samples)) {
    const samples = record.samples.map((sample: unknown, i) => {
      const lane = lanes[i];
      if (!lane || typeof sample !== "object" || sample === null) return sample;
      return withLaneKeys(sample as Record<string, unknown>, name, [...lane], infoWire);
    });
    return { ...record, samples };
  }
  const lane = lanes[0];
  if (!lane) return { ...record };
  return withLaneKeys(record, name, [...lane], infoWire);
}

function objectOr(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function withLaneKeys(
  record: Readonly<Record<string, unknown>>,
  name: string,
  values: unknown,
  info: LaneInfoWire | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...record,
    logprob_lanes: { ...objectOr(record.logprob_lanes), [name]: values },
  };
  if (info) out.logprob_lane_info = { ...objectOr(record.logprob_lane_info), [name]: info };
  return out;
}

/**
 * The text of a record with keys added, every byte of `lineText` before its closing brace kept
 * (Python's `1.0`, key order, spacing): used when the record had none of the keys. Otherwise
 * undefined, and the caller re-serializes the patched object.
 */
export function appendKeysToLine(
  lineText: string,
  original: Readonly<Record<string, unknown>>,
  patched: Readonly<Record<string, unknown>>,
  stringify: (value: unknown) => string,
): string | undefined {
  const added = Object.keys(patched).filter((k) => !(k in original));
  const changed = Object.keys(original).some((k) => patched[k] !== original[k]);
  if (changed || added.length === 0) return undefined;
  const body = lineText.trimEnd();
  if (!body.endsWith("}")) return undefined;
  const inner = body.slice(0, -1).trimEnd();
  const separator = inner.endsWith("{") ? "" : ",";
  const keys = added.map((k) => `${JSON.stringify(k)}:${stringify(patched[k])}`).join(",");
  return `${inner}${separator}${keys}}`;
}

/**
 * The text of a JSONL record with one lane added (`addLaneToRecord`), its original bytes kept
 * where the record had no lane keys yet: what `rescore --out` writes and "save as" downloads.
 */
export function lineWithLane(
  lineText: string,
  format: FormatId,
  name: string,
  lanes: readonly (LaneValues | undefined)[],
  info: LaneInfo | undefined,
): string {
  const parsed = parseJsonLine(lineText);
  const original = (parsed.ok ? parsed.value : {}) as Record<string, unknown>;
  const patched = addLaneToRecord(original, format, name, lanes, info);
  return (
    appendKeysToLine(lineText, original, patched, stringifyJsonLine) ?? stringifyJsonLine(patched)
  );
}
