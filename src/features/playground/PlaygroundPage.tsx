import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { episodeQueries, startEpisode } from "../../api/episodes";
import { healthQueries } from "../../api/health";
import { tokenizerQueries } from "../../api/tokenizers";
import { formOfEpisode } from "../../core/playground/formOfEpisode";
import { buildStartRequest, type FormField } from "../../core/playground/startRequest";
import { LiveRun } from "./LiveRun";
import styles from "./PlaygroundPage.module.css";
import { formActions, usePlaygroundForm } from "./playgroundFormStore";
import { RunForm } from "./RunForm";
import { UpstreamStatus } from "./UpstreamStatus";

/**
 * The episode a `?episode=ID` link follows, once its record is read; the form is filled with what it
 * ran with (prompt, tools, sampling, tokenizer), once per episode, so the form never shows the
 * default prompt beside another episode's tokens.
 */
function useFollowedEpisode(episodeId: string | undefined) {
  const { data: trajectory } = useQuery({
    ...episodeQueries.detail(episodeId ?? ""),
    enabled: episodeId !== undefined,
  });
  const { data: catalog } = useQuery(tokenizerQueries.catalog());
  const filledFor = useRef<string>(undefined);
  useEffect(() => {
    if (!trajectory || !catalog || filledFor.current === trajectory.id) return;
    filledFor.current = trajectory.id;
    formActions.episodeFollowed(
      formOfEpisode(
        trajectory,
        catalog.tokenizers.map((t) => t.name),
      ),
    );
  }, [trajectory, catalog]);
  // An episode started from this form already shows what it ran with; edits since are kept.
  const startedHere = (id: string) => {
    filledFor.current = id;
  };
  return { trajectory, startedHere };
}

/**
 * `/playground?episode=ID`: start an episode and watch its tokens arrive. The episode id lives in
 * the URL, so a reload (or a colleague) follows the same episode, replayed from its first event.
 */
export function PlaygroundPage({ history }: { readonly history?: ReactNode }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const episodeId = searchParams.get("episode") ?? undefined;
  const { data: health } = useQuery(healthQueries.status());
  const form = usePlaygroundForm();
  const followed = useFollowedEpisode(episodeId);
  const episodeTokenizer =
    searchParams.get("tokenizer") ?? followed.trajectory?.tokenizer ?? health?.tokenizer;
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Partial<Record<FormField, string>>>({});
  const start = useMutation({
    mutationFn: startEpisode,
    // An episode on another tokenizer than the server's names it in the URL: its ids decode with it.
    onSuccess: (id, request) => {
      followed.startedHere(id);
      setSearchParams(
        request.tokenizer === undefined
          ? { episode: id }
          : { episode: id, tokenizer: request.tokenizer },
      );
      void queryClient.invalidateQueries({ queryKey: episodeQueries.all() });
    },
  });
  const handleRun = () => {
    const built = buildStartRequest(form, health?.isSimulated ?? false);
    setErrors(built.ok ? {} : built.errors);
    if (built.ok) start.mutate(built.request);
  };
  return (
    <div className={styles.page}>
      <aside className={styles.side}>
        <UpstreamStatus picked={form.tokenizer === "" ? undefined : form.tokenizer} />
        <RunForm health={health} errors={errors} isStarting={start.isPending} onRun={handleRun} />
        {start.error && <div className={styles.error}>{start.error.message}</div>}
        {history}
      </aside>
      <section className={styles.main}>
        {episodeId ? (
          <LiveRun key={episodeId} episodeId={episodeId} tokenizer={episodeTokenizer} />
        ) : (
          <div className={styles.empty}>
            <p>Run an episode to see its tokens arrive, segment by segment.</p>
            <p>Prompt tokens are grey, model output (trained, mask 1) blue, tool results orange.</p>
          </div>
        )}
      </section>
    </div>
  );
}
