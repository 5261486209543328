import { useQuery } from "@tanstack/react-query";
import { healthQueries, upstreamText } from "../../api/health";
import { tokenizerQueries } from "../../api/tokenizers";
import { familyById, familyToolsText } from "../../core/families/families";
import styles from "./UpstreamStatus.module.css";

/**
 * Which upstream answers (SGLang URL or the simulator), with its model, the tokenizer and family
 * the next run speaks (`picked` in the form, else the server's default) and the context.
 */
export function UpstreamStatus({ picked }: { readonly picked?: string | undefined }) {
  const { data: health, error } = useQuery(healthQueries.status());
  const shown = picked ?? health?.tokenizer;
  // Loading the tokenizer early means the first tokens already show as text, not `#id`.
  const tokenizer = useQuery({
    ...tokenizerQueries.load(shown ?? ""),
    enabled: shown !== undefined,
  });
  if (error) {
    return (
      <div className={`${styles.status} ${styles.down}`} data-testid="upstream-status">
        server unreachable: {error.message}
      </div>
    );
  }
  if (!health) return <div className={styles.status}>checking upstream…</div>;
  const family = familyById(shown ?? health.tokenizer);
  return (
    <dl className={styles.status} data-testid="upstream-status">
      <dt>upstream</dt>
      <dd>
        {health.isSimulated ? (
          <span className={styles.simBadge} title="the embedded SGLang simulator: scripted replies">
            simulator
          </span>
        ) : (
          <code className={styles.url}>{upstreamText(health)}</code>
        )}
      </dd>
      <dt>model</dt>
      <dd>{health.model}</dd>
      <dt>tokenizer</dt>
      <dd>
        {shown}
        {picked !== undefined && picked !== health.tokenizer && (
          <span className={styles.muted} data-testid="tokenizer-picked">
            {" "}
            (picked; server default {health.tokenizer})
          </span>
        )}{" "}
        <span className={styles.muted} data-testid="tokenizer-state">
          {tokenizer.error
            ? `(not loaded: ${tokenizer.error.message}; showing token ids)`
            : tokenizer.data
              ? `(loaded, ${tokenizer.data.vocabSize.toLocaleString("en-US")} tokens)`
              : "(loading in the browser…)"}
        </span>
      </dd>
      {family && (
        <>
          <dt>family</dt>
          <dd className={styles.muted} data-testid="tokenizer-family">
            {familyToolsText(family)}
          </dd>
        </>
      )}
      <dt>context</dt>
      <dd>
        {health.contextLength === null
          ? "unknown"
          : `${health.contextLength.toLocaleString("en-US")} tokens`}
      </dd>
      {health.runningEpisodes > 0 && (
        <>
          <dt>running</dt>
          <dd>{health.runningEpisodes}</dd>
        </>
      )}
    </dl>
  );
}
