import { driftExitCodeOf } from "../../src/core/drift/mergeReports";
import type { TurnCheck, TurnReport } from "../../src/core/drift/prefixCheck";
import type { DriftResult } from "../../src/core/drift/types";
import { badLineText, unlistedNote } from "../../src/core/files/errorLog";
import {
  TOKENIZER_REASON_TEXT,
  type TokenizerChoice,
} from "../../src/core/tokenizer/chooseTokenizer";
import { type FileDrift, hasDrift, type TrajectoryDrift } from "./driftFile";

/** Distinct reasons for unchecked trajectories the human output lists; `--json` lists them all. */
const REASONS_SHOWN = 10;
/** Places (`line#row`) named per reason in the human output. */
const PLACES_SHOWN = 8;

/**
 * 2 = something in the file was not checked (unreadable, no valid line, a bad line, an unchecked
 * trajectory), 1 = every trajectory was checked and some drift, 0 = checked and clean. A byte
 * range of a file (`--shard` on one file) may hold no line at all: "no valid line" is then judged
 * on the merged report (`merge-reports`), not on the shard.
 */
export function fileExitCode(file: FileDrift): number {
  return driftExitCodeOf({
    readError: file.readError !== undefined,
    validLines: file.validLines,
    badLines: file.badLines,
    unchecked: file.unchecked.length,
    drifted: file.drifted,
    partial: file.shard !== undefined,
  });
}

/** The run's exit code: the highest of its files'. */
export function driftExitCode(files: readonly FileDrift[]): number {
  return Math.max(0, ...files.map(fileExitCode));
}

/** Why the tokenizer was chosen, in words (a pick is the `--tokenizer` flag here). */
function reasonText(choice: TokenizerChoice): string {
  return choice.reason === "picked"
    ? "given with --tokenizer"
    : TOKENIZER_REASON_TEXT[choice.reason];
}

function describeResult(r: DriftResult): string {
  const classes = [...new Set(r.regions.flatMap((g) => g.classes))].join(",");
  return (
    `${r.mode}: first divergence at token ${r.firstDivergenceIndex}, ${r.regions.length} region(s) ` +
    `[${classes}], ${r.trainableTokensAffected} trainable token(s) affected ` +
    `(${r.lenTito} -> ${r.lenRetok} tokens${r.textEqual ? "" : ", text differs"})`
  );
}

/** One short line per non-CLEAN turn of the template check (and why turns went unchecked). */
function turnLines(where: string, r: DriftResult): string[] {
  const report = r.turns;
  if (report === undefined) return [];
  const lines = report.turns
    .filter((k) => k.class !== "CLEAN")
    .map(
      (k) =>
        `${where} template turn ${k.turn}: ${k.class} at token ${k.firstDivergenceIndex}` +
        ` (${k.rule}): ${k.sentence ?? ""}`.trimEnd(),
    );
  if (report.note !== undefined) lines.push(`${where} template turns: ${report.note}`);
  return lines;
}

function at(path: string, t: { line: number; row: number; id: string }): string {
  return `${path}:${t.line}${t.row > 0 ? `#${t.row}` : ""} ${t.id}`;
}

/** Unchecked trajectories grouped by reason, each with the places it applies to (`line#row id`). */
function uncheckedLines(file: FileDrift): string[] {
  const byReason = new Map<string, string[]>();
  for (const t of file.unchecked) {
    const places = byReason.get(t.reason) ?? [];
    places.push(`${t.line}${t.row > 0 ? `#${t.row}` : ""}`);
    byReason.set(t.reason, places);
  }
  const lines: string[] = [];
  const unit = file.unit ?? "line";
  for (const [reason, places] of [...byReason].slice(0, REASONS_SHOWN)) {
    const more = places.length > PLACES_SHOWN ? ` and ${places.length - PLACES_SHOWN} more` : "";
    lines.push(
      `${file.path}: ${places.length} unchecked (${unit} ${places.slice(0, PLACES_SHOWN).join(", ")}${more}): ${reason}`,
    );
  }
  if (byReason.size > REASONS_SHOWN) {
    lines.push(`${file.path}: ${byReason.size - REASONS_SHOWN} more reasons (--json lists all)`);
  }
  return lines;
}

/** The human report of one file: its tokenizer, drifted and unchecked trajectories, bad lines, a summary. */
export function humanReport(file: FileDrift): string[] {
  if (file.readError !== undefined) return [`${file.path}: cannot read: ${file.readError}`];
  const lines: string[] = [];
  if (file.tokenizer !== null) {
    lines.push(`${file.path}: tokenizer ${file.tokenizer.name} (${reasonText(file.tokenizer)})`);
  }
  for (const t of file.trajectories) {
    if (!hasDrift(t)) continue;
    const parts = t.results.filter((r) => r.firstDivergenceIndex !== undefined).map(describeResult);
    if (t.callPrefix?.ok === false) parts.push(`calls: ${t.callPrefix.message}`);
    lines.push(`${at(file.path, t)} ${parts.join("; ")}`);
  }
  for (const t of file.trajectories) {
    for (const r of t.results) lines.push(...turnLines(at(file.path, t), r));
  }
  lines.push(...uncheckedLines(file));
  const unit = file.unit ?? "line";
  for (const e of file.errors) {
    lines.push(`${file.path}: ${badLineText(e, unit)}`);
  }
  const unlisted = unlistedNote(file.badLines, file.errors.length, unit);
  if (unlisted !== undefined) lines.push(`${file.path}: ${unlisted}`);
  const { checked, drifted, trainableAffected: trainable } = file;
  const total = checked + file.unchecked.length;
  if (file.modes.length > 1) {
    for (const m of file.modes) {
      lines.push(
        `${file.path}: ${m.mode}: ${m.checked} checked, ${m.unchecked} unchecked, ${m.drifted} drifted`,
      );
    }
  }
  const share = checked === 0 ? 0 : (100 * drifted) / checked;
  lines.push(
    `${file.path}: ${file.format ?? "no readable records"}, ${total} trajectories ` +
      `(${checked} checked, ${file.unchecked.length} unchecked), ${drifted} drifted ` +
      `(${share.toFixed(1)}% of checked), ${trainable} trainable tokens affected, ` +
      `${file.badLines} bad ${unit}s`,
  );
  return lines;
}

/** The `--json` report of one file. */
export function jsonReport(file: FileDrift): Record<string, unknown> {
  return {
    path: file.path,
    format: file.format,
    tokenizer:
      file.tokenizer === null
        ? null
        : {
            name: file.tokenizer.name,
            reason: file.tokenizer.reason,
            why: reasonText(file.tokenizer),
          },
    exit_code: fileExitCode(file),
    valid_lines: file.validLines,
    trajectories: file.checked + file.unchecked.length,
    checked: file.checked,
    unchecked: file.unchecked.length,
    drifted: file.drifted,
    modes: Object.fromEntries(
      file.modes.map((m) => [
        m.mode,
        { checked: m.checked, unchecked: m.unchecked, drifted: m.drifted },
      ]),
    ),
    unchecked_trajectories: file.unchecked.map((t) => ({
      line: t.line,
      row: t.row,
      id: t.id,
      reason: t.reason,
      modes: t.modes,
    })),
    errors: file.errors.map((e) =>
      e.field === undefined
        ? { line: e.line, message: e.message }
        : { line: e.line, field: e.field, message: e.message },
    ),
    bad_lines: file.badLines,
    ...(file.readError === undefined ? {} : { read_error: file.readError }),
    ...(file.shard === undefined ? {} : { shard: { ...file.shard } }),
    ...(file.unit === undefined ? {} : { unit: file.unit }),
    ...(file.roundTrip === undefined
      ? {}
      : {
          round_trip:
            file.roundTripReason === undefined
              ? { path: file.roundTrip }
              : { path: file.roundTrip, reason: file.roundTripReason },
        }),
    results: file.trajectories.flatMap(jsonResults),
  };
}

/** The `--json` results of one checked trajectory: one object per check, in mode order. */
export function jsonResults(t: TrajectoryDrift): Record<string, unknown>[] {
  return t.results.map((r) => ({
    line: t.line,
    row: t.row,
    id: t.id,
    mode: r.mode,
    len_tito: r.lenTito,
    len_retok: r.lenRetok,
    text_equal: r.textEqual,
    first_divergence_index: r.firstDivergenceIndex ?? null,
    regions: r.regions.map((g) => ({
      t: g.t,
      r: g.r,
      bytes: g.bytes,
      text: g.text,
      retok_text: g.retokText,
      tito: g.tito.map((k) => [k.id, k.piece, k.logprob ?? null]),
      retok: g.retok.map((k) => [k.id, k.piece]),
      delta: g.delta,
      classes: g.classes,
      segment: g.segment,
      role: g.role ?? null,
      trainable_affected: g.trainableAffected,
    })),
    trainable_tokens_affected: r.trainableTokensAffected,
    ...(r.turns === undefined ? {} : jsonTurns(r.turns)),
    ...(t.callPrefix === undefined ? {} : { calls_prefix: t.callPrefix }),
  }));
}

function jsonTurn(k: TurnCheck): Record<string, unknown> {
  return {
    turn: k.turn,
    class: k.class,
    first_divergence_index: k.firstDivergenceIndex ?? null,
    rule: k.rule ?? null,
    ...(k.sentence === undefined ? {} : { sentence: k.sentence }),
    prefix_length: k.prefixLength,
    rendered_length: k.renderedLength,
    ...(k.diffs.length === 0
      ? {}
      : {
          diffs: k.diffs.map((d) => ({
            t: d.t,
            r: d.r,
            removed: d.removed.map((x) => [x.id, x.piece]),
            inserted: d.inserted.map((x) => [x.id, x.piece]),
            text_changed: d.textChanged,
          })),
        }),
  };
}

/** The per-turn prefix check of a template result, as `--json` writes it. */
function jsonTurns(report: TurnReport): Record<string, unknown> {
  return {
    turns: report.turns.map(jsonTurn),
    ...(report.note === undefined ? {} : { turns_note: report.note }),
  };
}
