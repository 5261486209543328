import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { replyToHuman } from "../../api/episodes";
import type { WaitingHuman } from "../../core/trajectory/foldEvents";
import { useNow } from "../../hooks/useNow";
import styles from "./LiveRun.module.css";

function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The `ask_human` tool's question, with a box to answer it before the tool times out. */
export function HumanReplyBox({
  episodeId,
  waiting,
}: {
  readonly episodeId: string;
  readonly waiting: WaitingHuman;
}) {
  const [reply, setReply] = useState("");
  const now = useNow(true);
  const send = useMutation({ mutationFn: (text: string) => replyToHuman(episodeId, text) });
  return (
    <form
      className={styles.human}
      data-testid="human-reply"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate(reply);
      }}
    >
      <div className={styles.humanTitle}>
        <strong>The model asks you</strong> <code>{waiting.callId}</code>
        <span className={styles.countdown}>{timeLeft(waiting.deadlineMs - now)} left</span>
      </div>
      <blockquote className={styles.question}>{waiting.question}</blockquote>
      <div className={styles.humanRow}>
        <input
          aria-label="your answer"
          value={reply}
          onChange={(e) => setReply(e.target.value)}
          placeholder="your answer (becomes the tool result)"
        />
        <button type="submit" disabled={send.isPending}>
          Send answer
        </button>
      </div>
      {send.error && <div className={styles.error}>{send.error.message}</div>}
    </form>
  );
}
