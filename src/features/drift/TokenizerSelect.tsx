import { driftPrefsActions } from "./driftPrefsStore";
import { useDriftTokenizer } from "./useDriftTokenizer";

/** Picks the tokenizer the drift checks retokenize with (from `/api/tokenizers`). */
export function TokenizerSelect() {
  const { tokenizer, names } = useDriftTokenizer();
  return (
    <label>
      tokenizer{" "}
      <select
        aria-label="drift tokenizer"
        value={tokenizer ?? ""}
        onChange={(e) => driftPrefsActions.tokenizerPicked(e.target.value)}
      >
        {names.length === 0 && <option value="">{tokenizer ?? "loading…"}</option>}
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}
