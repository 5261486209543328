import { trajectoryIdsAbsentReason } from "../../core/formats/idsAbsent";
import { recordColumns } from "../../core/trajectory/recordColumns";
import type { Trajectory } from "../../core/trajectory/types";
import styles from "./TextRecord.module.css";

/**
 * A record without token ids (verl, prime-rl samples, ART, ATIF without ids, text tables): its
 * text, its short columns (rewards by function, advantage, step) and why no token view or drift
 * check exists for it, instead of an empty token view.
 */
export function TextRecord({ trajectory }: { readonly trajectory: Trajectory }) {
  const reason = trajectoryIdsAbsentReason(trajectory);
  const { input, output } = trajectory.metadata;
  const messages =
    trajectory.messages && trajectory.messages.length > 0
      ? trajectory.messages
      : [
          ...(typeof input === "string" ? [{ role: "input", content: input }] : []),
          ...(typeof output === "string" ? [{ role: "output", content: output }] : []),
        ];
  const columns = recordColumns(
    trajectory.metadata,
    messages.map((m) => m.content),
  );
  return (
    <div className={styles.record} data-testid="text-record">
      {reason && (
        <p className={styles.note} role="note">
          No token view: {reason}
        </p>
      )}
      {columns.length > 0 && (
        <dl className={styles.columns} aria-label="columns" data-testid="record-columns">
          {columns.map((c) => (
            <div key={c.name} className={styles.column}>
              <dt>{c.name}</dt>
              <dd>{c.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {messages.map((m, i) => (
        // Messages have no ids of their own; their order is their identity here.
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list, never reordered
        <section key={i} className={styles.message}>
          <h3 className={styles.role}>{m.role}</h3>
          <pre className={styles.content}>{m.content}</pre>
        </section>
      ))}
    </div>
  );
}
