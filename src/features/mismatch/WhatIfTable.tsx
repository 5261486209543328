import { useEffect, useMemo, useRef, useState } from "react";
import { Link } from "react-router";
import { ruleNamed } from "../../core/mismatch/corrections/registry";
import type { ReplaySummary } from "../../core/mismatch/corrections/replay";
import type { RolloutFileClient, RolloutFileState } from "../../workers/rolloutFileClient";
import scan from "../rollouts/scanBar.module.css";
import { type ThresholdEdits, useWhatIf, whatIfChoices } from "./useWhatIf";
import styles from "./WhatIfTable.module.css";
import { whatIfCells } from "./whatIf";

export interface WhatIfTableProps {
  readonly fileId: string;
  readonly client: RolloutFileClient | undefined;
  readonly state: RolloutFileState | undefined;
  /** Why the file has no token ids (text only): nothing to replay, the button is off. */
  readonly idsAbsent?: string | undefined;
}

/** The rows a correction drops, each a link to the row (the first ten, then a count). */
function DroppedRows({
  fileId,
  rows,
}: {
  readonly fileId: string;
  readonly rows: readonly number[];
}) {
  if (rows.length === 0) return null;
  return (
    <span className={styles.rows}>
      {rows.slice(0, 10).map((r) => (
        <Link key={r} to={`/files/${fileId}/${r}`}>
          #{r}
        </Link>
      ))}
      {rows.length > 10 && <span className={styles.muted}>+{rows.length - 10}</span>}
    </span>
  );
}

/** One threshold as a number field; a valid number commits, an empty or partial entry stays. */
function ThresholdField(props: {
  readonly name: string;
  readonly label: string;
  readonly value: number;
  readonly onCommit: (value: number) => void;
}) {
  const [text, setText] = useState(String(props.value));
  const ref = useRef<HTMLInputElement>(null);
  // A threshold that follows another (verl's lo = 1/hi) shows its new value, unless being typed.
  useEffect(() => {
    if (document.activeElement !== ref.current) setText(String(props.value));
  }, [props.value]);
  return (
    <label className={styles.field}>
      {props.label}{" "}
      <input
        ref={ref}
        aria-label={`${props.name} ${props.label}`}
        type="number"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          const v = Number(event.target.value);
          if (event.target.value.trim() !== "" && Number.isFinite(v)) props.onCommit(v);
        }}
      />
    </label>
  );
}

function Row({
  fileId,
  replay,
  onThreshold,
}: {
  readonly fileId: string;
  readonly replay: ReplaySummary;
  readonly onThreshold: (name: string, key: string, value: number) => void;
}) {
  const cells = whatIfCells(replay);
  const rule = ruleNamed(replay.name);
  return (
    <tr data-correction={replay.name}>
      <th scope="row" title={rule ? `${rule.formula}\n${rule.source}` : undefined}>
        {rule?.title ?? replay.name} <code>{replay.name}</code>
      </th>
      <td className={styles.thresholds} title={cells.thresholds}>
        {Object.entries(replay.params).map(([key, value]) => (
          <ThresholdField
            key={key}
            name={replay.name}
            label={key}
            value={value}
            onCommit={(v) => onThreshold(replay.name, key, v)}
          />
        ))}
      </td>
      <td data-cell="masked">{cells.masked}</td>
      <td data-cell="clipped">{cells.clipped}</td>
      <td data-cell="unchecked">{cells.unchecked}</td>
      <td data-cell="ess">{cells.ess}</td>
      <td data-cell="dropped">
        {cells.dropped} <DroppedRows fileId={fileId} rows={replay.rowsDropped} />
      </td>
    </tr>
  );
}

/**
 * The what-if table: every correction replayed over the file side by side (docs/mismatch.md),
 * the numbers of `rollout-lens mismatch --correction NAME,… --json` (the same core collector).
 */
export function WhatIfTable({ fileId, client, state, idsAbsent }: WhatIfTableProps) {
  const [isAsked, setAsked] = useState(false);
  const [edits, setEdits] = useState<ThresholdEdits>({});
  const choices = useMemo(() => whatIfChoices(edits), [edits]);
  const query = useWhatIf(fileId, client, state, isAsked, choices);
  const handleThreshold = (name: string, key: string, value: number) =>
    setEdits((e) => ({ ...e, [name]: { ...e[name], [key]: value } }));
  const compared = query.data?.[0]?.compared;
  return (
    <section className={scan.bar} aria-label="what-if corrections" data-testid="what-if">
      <div className={scan.row}>
        <button
          type="button"
          className={scan.check}
          onClick={() => setAsked(true)}
          disabled={isAsked || idsAbsent !== undefined}
          title={idsAbsent}
        >
          Compare corrections
        </button>
        <span className={styles.muted} role="status">
          {!isAsked &&
            (idsAbsent === undefined
              ? "replay IcePop, TRM, OPSM, M2PO, DPPO, CISPO, GSPO, SAPO… over this file"
              : "off: this file holds no token ids (see above)")}
          {isAsked && query.isFetching && "replaying…"}
          {query.isError && <span className={styles.error}>{query.error.message}</span>}
          {compared === 0 &&
            "nothing compared: no trained token has a logprob in two lanes, so no correction could run; every row is unchecked"}
          {compared !== undefined &&
            compared > 0 &&
            `${compared.toLocaleString("en-US")} compared tokens, each row's default lanes; advantages recorded, else GRPO from the group's rewards`}
        </span>
      </div>
      {query.data && (
        <table className={styles.table} data-testid="what-if-table">
          <thead>
            <tr>
              <th>correction</th>
              <th>thresholds</th>
              <th>masked</th>
              <th>clipped</th>
              <th>unchecked</th>
              <th>ESS</th>
              <th>rows dropped</th>
            </tr>
          </thead>
          <tbody>
            {query.data.map((r) => (
              <Row key={r.name} fileId={fileId} replay={r} onThreshold={handleThreshold} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
