import type { TokenizerReason } from "../../core/tokenizer/chooseTokenizer";
import type { Trajectory } from "../../core/trajectory/types";
import { driftPrefsActions, useDriftTokenizerPick } from "./driftPrefsStore";
import styles from "./TokenizerSelect.module.css";
import { useDriftTokenizer } from "./useDriftTokenizer";

/** Why "auto" chose what it did (a pick needs no reason). */
const REASONS: Readonly<Record<Exclude<TokenizerReason, "picked">, string>> = {
  recorded: "named by the record",
  ids: "recognised from the first token ids",
  default: "the server's default: the record names none",
};

/**
 * Picks the tokenizer that decodes and retokenizes recorded ids (from `/api/tokenizers`); "auto"
 * chooses per trajectory and says why.
 */
export function TokenizerSelect({ trajectory }: { readonly trajectory?: Trajectory }) {
  const picked = useDriftTokenizerPick();
  const { tokenizer, reason, names } = useDriftTokenizer(trajectory);
  return (
    <span className={styles.select}>
      <label>
        tokenizer{" "}
        <select
          aria-label="tokenizer"
          value={picked ?? ""}
          onChange={(e) => driftPrefsActions.tokenizerPicked(e.target.value || undefined)}
        >
          <option value="">{`auto${picked === undefined && tokenizer ? `: ${tokenizer}` : ""}`}</option>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      {reason !== undefined && reason !== "picked" && (
        <span className={styles.reason} data-testid="tokenizer-reason">
          {REASONS[reason]}
        </span>
      )}
    </span>
  );
}
