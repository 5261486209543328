import { tokenCount } from "./flatten";
import type { Trajectory } from "./types";

/**
 * Policy versions: which weights produced each token, where a record says (docs/format.md, Policy
 * versions). Sources, first found wins:
 * - AReaL: `versions` per token (`[-1] * input_len + output_versions`, areal/workflow/rlvr.py), or
 *   `output_versions` per output token (`ModelResponse.output_versions`), kept in metadata;
 * - slime: `weight_versions`, one entry per `/generate` call (SGLang's `meta_info.weight_version`
 *   appended per turn), kept in metadata: entry k is the k-th model segment's;
 * - verifiers: `run.work.policy` (`metadata.verifiers.policy_span`), one version or span for all turns;
 * - a live or stored episode: each `/generate` call's `weightVersion` (SGLang `meta_info`), call k
 *   for model segment k.
 * Negative or missing versions are "none" (prompt and tool tokens).
 */

/** A run of tokens generated under one policy version. */
export interface PolicySpan {
  /** First and one-past-last token index. */
  readonly start: number;
  readonly end: number;
  readonly version: string;
  /**
   * How many versions behind the newest one of the trajectory (numeric versions), 0 for the
   * newest; undefined when versions are not numbers and differ from the newest.
   */
  readonly staleness: number | undefined;
}

export interface PolicyVersions {
  /** The field the versions came from, for the view's caption. */
  readonly source: string;
  readonly latest: string;
  readonly spans: readonly PolicySpan[];
}

type Version = string | null;

function asVersion(value: unknown): Version {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? String(value) : null;
  if (typeof value === "string" && value.length > 0) return value;
  return null;
}

/** Token ranges of the model segments, in order. */
function modelRanges(t: Trajectory): [number, number][] {
  const out: [number, number][] = [];
  let k = 0;
  for (const s of t.segments) {
    if (s.kind === "model") out.push([k, k + s.tokenIds.length]);
    k += s.tokenIds.length;
  }
  return out;
}

/** Per token: the version, from per-turn versions (entry k for model segment k). */
function perTurn(t: Trajectory, versions: readonly unknown[]): Version[] | undefined {
  const ranges = modelRanges(t);
  if (versions.length === 0 || ranges.length === 0) return undefined;
  const out: Version[] = new Array(tokenCount(t.segments)).fill(null);
  ranges.forEach(([from, to], i) => {
    // One version for several turns: the record's only one applies to all of them.
    const v = asVersion(versions.length === 1 ? versions[0] : versions[i]);
    for (let k = from; k < to; k++) out[k] = v;
  });
  return out;
}

/** Per token, from a per-token array (whole trajectory) or a per-output-token one (model tokens). */
function perToken(t: Trajectory, versions: readonly unknown[]): Version[] | undefined {
  const n = tokenCount(t.segments);
  if (versions.length === n) return versions.map(asVersion);
  const ranges = modelRanges(t);
  const modelTokens = ranges.reduce((sum, [from, to]) => sum + to - from, 0);
  if (versions.length !== modelTokens || modelTokens === 0) return undefined;
  const out: Version[] = new Array(n).fill(null);
  let i = 0;
  for (const [from, to] of ranges)
    for (let k = from; k < to; k++) out[k] = asVersion(versions[i++]);
  return out;
}

/**
 * verifiers' `run.work.policy` (kept as `metadata.verifiers.policy_span`): the live policy versions
 * spanned while the episode was generated, the same for every model turn: `5`, or `4–5` when the
 * weights changed mid-episode (which turn got which is not recorded).
 */
function policySpanOf(m: Trajectory["metadata"]): string | undefined {
  const v = m.verifiers;
  const span =
    typeof v === "object" && v !== null ? (v as Record<string, unknown>).policy_span : undefined;
  if (typeof span !== "object" || span === null) return undefined;
  const { start, end } = span as Record<string, unknown>;
  if (!Number.isInteger(start) || !Number.isInteger(end)) return undefined;
  return start === end ? String(start) : `${start}–${end}`;
}

function tokenVersions(t: Trajectory): { source: string; versions: Version[] } | undefined {
  const m = t.metadata;
  for (const key of ["versions", "output_versions"]) {
    const value = m[key];
    if (!Array.isArray(value)) continue;
    const versions = perToken(t, value);
    if (versions) return { source: key, versions };
  }
  if (Array.isArray(m.weight_versions)) {
    const versions = perTurn(t, m.weight_versions);
    if (versions) return { source: "weight_versions", versions };
  }
  const span = policySpanOf(m);
  if (span !== undefined) {
    const versions = perTurn(t, [span]);
    if (versions) return { source: "run.work.policy", versions };
  }
  const calls = t.calls ?? [];
  if (calls.some((c) => c.weightVersion !== undefined)) {
    const versions = perTurn(
      t,
      calls.map((c) => c.weightVersion),
    );
    if (versions) return { source: "meta_info.weight_version", versions };
  }
  return undefined;
}

/** The newest version: the largest when all are numbers, else the last one seen. */
function newest(versions: readonly string[]): string {
  const numeric = versions.every((v) => /^\d+$/.test(v));
  if (numeric) return String(Math.max(...versions.map(Number)));
  return versions.at(-1) ?? "";
}

/** The policy version spans of a trajectory, or undefined when it records none. */
export function policyVersions(t: Trajectory): PolicyVersions | undefined {
  const found = tokenVersions(t);
  if (!found) return undefined;
  const { versions } = found;
  const seen = versions.filter((v): v is string => v !== null);
  if (seen.length === 0) return undefined;
  const latest = newest(seen);
  const isNumeric = /^\d+$/.test(latest) && seen.every((v) => /^\d+$/.test(v));
  const staleness = (v: string) =>
    v === latest ? 0 : isNumeric ? Number(latest) - Number(v) : undefined;
  const spans: PolicySpan[] = [];
  let k = 0;
  while (k < versions.length) {
    const v = versions[k];
    if (v === null || v === undefined) {
      k++;
      continue;
    }
    const start = k;
    while (k < versions.length && versions[k] === v) k++;
    spans.push({ start, end: k, version: v, staleness: staleness(v) });
  }
  return { source: found.source, latest, spans };
}

/** A segment's policy versions in a few words, with its largest staleness (for its header). */
export interface SegmentPolicy {
  readonly label: string;
  readonly staleness: number | undefined;
}

/**
 * Per segment (`segmentStarts`: token index of each segment's start, then the total): the versions
 * of its spans as "weights 7 (newest)", "weights 5 · 2 behind" or "weights 3–4 · up to 1 behind";
 * undefined for a segment no span touches.
 */
export function segmentPolicies(
  versions: PolicyVersions,
  segmentStarts: ArrayLike<number>,
): (SegmentPolicy | undefined)[] {
  const out: (SegmentPolicy | undefined)[] = [];
  let i = 0;
  for (let s = 0; s + 1 < segmentStarts.length; s++) {
    const from = segmentStarts[s] ?? 0;
    const to = segmentStarts[s + 1] ?? from;
    while (i < versions.spans.length && (versions.spans[i]?.end ?? 0) <= from) i++;
    const inside: PolicySpan[] = [];
    for (let j = i; j < versions.spans.length; j++) {
      const span = versions.spans[j];
      if (!span || span.start >= to) break;
      inside.push(span);
    }
    if (inside.length === 0) {
      out.push(undefined);
      continue;
    }
    const names = [...new Set(inside.map((sp) => sp.version))];
    const known = inside.map((sp) => sp.staleness).filter((x): x is number => x !== undefined);
    const staleness = known.length === inside.length ? Math.max(...known) : undefined;
    const what = names.length === 1 ? names[0] : `${names[0]}–${names.at(-1)}`;
    const behind =
      staleness === undefined
        ? ""
        : staleness === 0
          ? " (newest)"
          : `${names.length > 1 ? " · up to " : " · "}${staleness} behind`;
    out.push({ label: `weights ${what}${behind}`, staleness });
  }
  return out;
}
