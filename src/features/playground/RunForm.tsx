import { useQuery } from "@tanstack/react-query";
import type { Health } from "../../api/health";
import { tokenizerQueries } from "../../api/tokenizers";
import { familyById, familyToolsText } from "../../core/families/families";
import type { FormField } from "../../core/playground/startRequest";
import { formActions, usePlaygroundForm } from "./playgroundFormStore";
import styles from "./RunForm.module.css";

// The simulator's scripted policies (server/sim/options.ts).
const POLICIES = ["calculator", "looping", "malformed", "long-winded", "non-canonical"] as const;

const SAMPLING_FIELDS = [
  ["maxNewTokens", "max_new_tokens", "1"],
  ["temperature", "temperature", "0.05"],
  ["topP", "top_p", "0.05"],
  ["topK", "top_k", "1"],
] as const;

interface RunFormProps {
  readonly health: Health | undefined;
  readonly errors: Partial<Record<FormField, string>>;
  readonly isStarting: boolean;
  readonly onRun: () => void;
}

/** The episode's tokenizer (its family's chat format and tool calls), from `/api/tokenizers`. */
function TokenizerPicker({ error }: { readonly error: string | undefined }) {
  const form = usePlaygroundForm();
  const { data: catalog, error: catalogError } = useQuery(tokenizerQueries.catalog());
  const shown = form.tokenizer === "" ? catalog?.default : form.tokenizer;
  const family = shown === undefined ? undefined : familyById(shown);
  const note = (name: string) => {
    const f = familyById(name);
    return f ? familyToolsText(f) : "a local model folder: its family is read from its template";
  };
  return (
    <label className={styles.block}>
      <span>tokenizer / family</span>
      <select
        aria-label="tokenizer"
        value={form.tokenizer}
        onChange={(e) => formActions.fieldEdited("tokenizer", e.target.value)}
      >
        <option value="">{`server default${catalog ? ` (${catalog.default})` : ""}`}</option>
        {(catalog?.tokenizers ?? []).map((t) => (
          <option key={t.name} value={t.name} title={note(t.name)}>
            {familyById(t.name)?.label ?? t.name} ({t.name})
          </option>
        ))}
      </select>
      {family && (
        <span className={styles.note} data-testid="picked-family">
          {familyToolsText(family)}
        </span>
      )}
      {catalogError && <FieldError message={`tokenizers: ${catalogError.message}`} />}
      <FieldError message={error} />
    </label>
  );
}

function FieldError({ message }: { readonly message: string | undefined }) {
  return message ? <span className={styles.error}>{message}</span> : null;
}

/** System and user prompt, tools, sampling, iteration limit, policy, streaming; and Run. */
export function RunForm({ health, errors, isStarting, onRun }: RunFormProps) {
  const form = usePlaygroundForm();
  return (
    <form
      className={styles.form}
      onSubmit={(event) => {
        event.preventDefault();
        onRun();
      }}
    >
      <label className={styles.block}>
        <span>system prompt</span>
        <textarea
          rows={2}
          value={form.system}
          placeholder="(none)"
          onChange={(e) => formActions.fieldEdited("system", e.target.value)}
        />
      </label>
      <label className={styles.block}>
        <span>user prompt</span>
        <textarea
          rows={3}
          value={form.prompt}
          onChange={(e) => formActions.fieldEdited("prompt", e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) onRun();
          }}
        />
        <FieldError message={errors.prompt} />
      </label>
      <TokenizerPicker error={errors.tokenizer} />
      <fieldset className={styles.tools}>
        <legend>tools</legend>
        {(health?.tools ?? []).map((name) => (
          <label key={name} className={styles.check}>
            <input
              type="checkbox"
              checked={form.tools.includes(name)}
              onChange={() => formActions.toolToggled(name)}
            />
            <code>{name}</code>
          </label>
        ))}
      </fieldset>
      <fieldset className={styles.grid}>
        <legend>sampling</legend>
        {SAMPLING_FIELDS.map(([field, label, step]) => (
          <label key={field} className={styles.number}>
            <span>{label}</span>
            <input
              type="number"
              step={step}
              value={form[field]}
              placeholder="default"
              onChange={(e) => formActions.fieldEdited(field, e.target.value)}
            />
            <FieldError message={errors[field]} />
          </label>
        ))}
        <label className={styles.number}>
          <span>max iterations</span>
          <input
            type="number"
            min={0}
            step={1}
            value={form.maxIterations}
            placeholder="default"
            onChange={(e) => formActions.fieldEdited("maxIterations", e.target.value)}
          />
          <FieldError message={errors.maxIterations} />
        </label>
        <label className={styles.number}>
          <span>top-k alternatives</span>
          <input
            type="number"
            min={0}
            max={20}
            step={1}
            value={form.topLogprobs}
            placeholder="5"
            title="top_logprobs_num: alternatives recorded per model token (0 turns them off)"
            onChange={(e) => formActions.fieldEdited("topLogprobs", e.target.value)}
          />
          <FieldError message={errors.topLogprobs} />
        </label>
        {health?.isSimulated && (
          <label className={styles.number}>
            <span>simulator policy</span>
            <select
              value={form.policy}
              onChange={(e) => formActions.fieldEdited("policy", e.target.value)}
            >
              {POLICIES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
        )}
      </fieldset>
      <div className={styles.actions}>
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={form.isStreaming}
            onChange={formActions.streamingToggled}
          />
          stream tokens
        </label>
        <button type="submit" className={styles.run} disabled={isStarting || !health}>
          {isStarting ? "Starting…" : "▶ Run"}
        </button>
      </div>
    </form>
  );
}
