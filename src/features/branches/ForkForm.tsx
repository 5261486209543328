import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { episodeQueries, startBranches } from "../../api/episodes";
import { forkKind } from "../../core/tito/fork";
import type { Trajectory } from "../../core/trajectory/types";
import { MAX_BRANCHES } from "../../core/wire/episodes";
import styles from "./ForkForm.module.css";
import { type ForkFields, type ForkSource, forkRequest, toolResultsAt } from "./forkRequest";

interface ForkFormProps {
  readonly parent: Trajectory;
  /** Defaults to the parent as a stored episode. */
  readonly source?: ForkSource;
  readonly index: number;
  readonly onClose: () => void;
}

/** Starts branches; then one branch opens itself and k open the parent's group view. */
function useStartBranches(parentId: string, index: number, onClose: () => void) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: startBranches,
    onSuccess: async (ids) => {
      await queryClient.invalidateQueries({ queryKey: episodeQueries.all() });
      onClose();
      const [only] = ids;
      if (ids.length === 1 && only) navigate(`/episodes/${encodeURIComponent(only)}`);
      else navigate(`/episodes/${encodeURIComponent(parentId)}/branches?at=${index}`);
    },
  });
}

/**
 * "Branch here": sampling parameters, max iterations, k, and (when the token starts a tool
 * segment) the tool results to replace. One branch opens itself; k open the group view.
 */
export function ForkForm({ parent, source, index, onClose }: ForkFormProps) {
  const kind = forkKind(parent.segments, index);
  const original = kind === "tool" ? toolResultsAt(parent, index) : [];
  const sampling = parent.samplingParams ?? {};
  const [fields, setFields] = useState<ForkFields>({
    temperature: String(sampling.temperature ?? ""),
    maxNewTokens: String(sampling.max_new_tokens ?? ""),
    maxIterations: String(parent.metadata.max_iterations ?? ""),
    k: "1",
  });
  const [results, setResults] = useState<string[]>(original);
  const branch = useStartBranches(parent.id, index, onClose);
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    branch.mutate(
      forkRequest(fields, results, original, { ...(source ?? { episode: parent.id }), index }),
    );
  };
  return (
    <form className={styles.form} onSubmit={handleSubmit} data-testid="fork-form">
      <header className={styles.header}>
        <strong>Branch at token #{index}</strong>
        <span className={styles.muted}>
          {kind === "model"
            ? `the branch sends the parent's ids 0..${index - 1} and generates from #${index}`
            : kind === "tool"
              ? "the branch keeps the prefix up to the model's call; the tool result below is templated as in a live episode"
              : "the branch goes on after this turn"}
        </span>
      </header>
      <ForkFieldInputs fields={fields} onChange={(next) => setFields({ ...fields, ...next })} />
      {kind === "tool" &&
        results.map((text, i) => (
          <label key={String(i)} className={styles.edit}>
            tool result {results.length > 1 ? i + 1 : ""} (edit before branching)
            <textarea
              name={`tool_result_${i}`}
              rows={4}
              value={text}
              onChange={(e) => setResults(results.map((r, j) => (j === i ? e.target.value : r)))}
            />
          </label>
        ))}
      {branch.error && (
        <p className={styles.error} role="alert">
          {branch.error.message}
        </p>
      )}
      <div className={styles.actions}>
        <button type="submit" disabled={branch.isPending}>
          {Number(fields.k) > 1 ? `Branch ×${fields.k}` : "Branch"}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The sampling, iteration and k inputs. */
function ForkFieldInputs({
  fields,
  onChange,
}: {
  readonly fields: ForkFields;
  readonly onChange: (next: Partial<ForkFields>) => void;
}) {
  return (
    <div className={styles.fields}>
      <label>
        temperature
        <input
          name="temperature"
          inputMode="decimal"
          value={fields.temperature}
          onChange={(e) => onChange({ temperature: e.target.value })}
        />
      </label>
      <label>
        max new tokens
        <input
          name="max_new_tokens"
          inputMode="numeric"
          value={fields.maxNewTokens}
          onChange={(e) => onChange({ maxNewTokens: e.target.value })}
        />
      </label>
      <label>
        max iterations
        <input
          name="max_iterations"
          inputMode="numeric"
          value={fields.maxIterations}
          onChange={(e) => onChange({ maxIterations: e.target.value })}
        />
      </label>
      <label>
        branches (k ≤ {MAX_BRANCHES})
        <input
          name="k"
          type="number"
          min={1}
          max={MAX_BRANCHES}
          value={fields.k}
          onChange={(e) => onChange({ k: e.target.value })}
        />
      </label>
    </div>
  );
}
