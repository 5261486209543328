import type { TurnCheck, TurnReport, TurnToken } from "../../core/drift/prefixCheck";
import { visibleText } from "../../core/layout/displayPiece";
import styles from "./TurnStrip.module.css";

/** The per-turn prefix check as a page hands it to the view (useTurnChecks). */
export interface TurnChecks {
  readonly report: TurnReport | undefined;
  readonly error?: string | undefined;
  /** Asked and not answered yet: the strip keeps its line. */
  readonly isPending?: boolean;
}

export interface TurnStripProps {
  /** The per-turn prefix check; undefined while it is computed. */
  readonly report: TurnReport | undefined;
  readonly error?: string | undefined;
  /** The check runs: the strip holds its line (no re-layout of the tokens below when it lands). */
  readonly isPending?: boolean;
  /** The turn whose differences the token view marks. */
  readonly selected: number | undefined;
  readonly onSelect: (turn: number) => void;
  /** Go to a recorded token (the first divergence). */
  readonly onShowToken: (token: number) => void;
}

const CLASS_TEXT: Readonly<Record<TurnCheck["class"], string>> = {
  CLEAN: "the rendering of the history is exactly the recorded prefix",
  REALIGN: "same text, other ids",
  FORK: "the template rewrote history the model saw",
};

/** A difference's tokens, each keyed by its token index on its own side. */
interface PlacedToken {
  readonly at: number;
  readonly token: TurnToken;
}

function placed(start: number, tokens: readonly TurnToken[]): PlacedToken[] {
  return tokens.map((token, k) => ({ at: start + k, token }));
}

function Tokens({
  tokens,
  label,
}: {
  readonly tokens: readonly PlacedToken[];
  readonly label: string;
}) {
  if (tokens.length === 0) return null;
  return (
    <span className={styles.tokens} data-testid={`turn-${label}`}>
      <span className={styles.label}>{label}</span>
      {tokens.map(({ at, token }) => (
        <code key={at} className={styles[label]} title={`id ${token.id}`}>
          {visibleText(token.piece, true)}
        </code>
      ))}
    </span>
  );
}

function Explanation({
  check,
  onShowToken,
}: {
  readonly check: TurnCheck;
  readonly onShowToken: (token: number) => void;
}) {
  if (check.class === "CLEAN") {
    return (
      <p className={styles.explain} data-testid="turn-explain">
        Turn {check.turn}: CLEAN, {CLASS_TEXT.CLEAN} ({check.prefixLength} tokens).
      </p>
    );
  }
  const at = check.firstDivergenceIndex;
  const removed = check.diffs.flatMap((d) => placed(d.t[0], d.removed));
  const inserted = check.diffs.flatMap((d) => placed(d.r[0], d.inserted));
  return (
    <div className={styles.explain} data-testid="turn-explain">
      <p>
        Turn {check.turn}: <strong data-class={check.class}>{check.class}</strong>,{" "}
        {CLASS_TEXT[check.class]}, from{" "}
        {at === undefined ? (
          "the end"
        ) : (
          <button type="button" className={styles.link} onClick={() => onShowToken(at)}>
            token {at}
          </button>
        )}{" "}
        · <code data-testid="turn-rule">{check.rule}</code>: {check.sentence}
      </p>
      <p className={styles.diff}>
        <Tokens tokens={removed} label="removed" />
        <Tokens tokens={inserted} label="inserted" />
      </p>
    </div>
  );
}

/**
 * The per-turn prefix check above the tokens: one cell per model turn coloured by its class
 * (CLEAN / REALIGN / FORK), and the selected turn explained (docs/drift.md, "Per turn").
 */
export function TurnStrip(props: TurnStripProps) {
  const { report, error, isPending, selected, onSelect, onShowToken } = props;
  if (error !== undefined) {
    return (
      <div className={styles.strip} data-testid="turn-strip">
        <span className={styles.title}>turns</span>
        <span className={styles.note}>cannot check the turns: {error}</span>
      </div>
    );
  }
  if (report === undefined) {
    if (!isPending) return null;
    return (
      <div className={styles.strip} data-testid="turn-strip">
        <div className={styles.cells}>
          <span className={styles.title}>turns</span>
          <span className={styles.note}>checking each turn's re-rendered history…</span>
        </div>
      </div>
    );
  }
  const current = report.turns.find((k) => k.turn === selected);
  const forks = report.turns.filter((k) => k.class !== "CLEAN").length;
  return (
    <div className={styles.strip} data-testid="turn-strip">
      <div className={styles.cells}>
        <span className={styles.title}>turns</span>
        {report.turns.map((k) => (
          <button
            key={k.turn}
            type="button"
            className={styles.cell}
            data-class={k.class}
            data-testid="turn-cell"
            aria-pressed={k.turn === selected}
            title={`turn ${k.turn}: ${k.class}${k.rule ? ` (${k.rule})` : ""}`}
            onClick={() => onSelect(k.turn)}
          >
            {k.turn}
          </button>
        ))}
        <span className={styles.summary} data-testid="turn-summary">
          {report.turns.length === 0
            ? "no turn checked"
            : forks === 0
              ? `all ${report.turns.length} CLEAN: every turn's re-rendered history is the recorded prefix`
              : `${forks} of ${report.turns.length} turns break the prefix`}
        </span>
      </div>
      {current && <Explanation check={current} onShowToken={onShowToken} />}
      {report.note !== undefined && (
        <p className={styles.note} data-testid="turn-note">
          {report.note}
        </p>
      )}
    </div>
  );
}
