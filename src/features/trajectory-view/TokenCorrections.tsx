import type { Replay, TokenVerdict } from "../../core/mismatch/corrections/replay";
import { verdictsAt } from "../../core/mismatch/corrections/replay";
import {
  REPLAY,
  type ReplayRow,
  type ReplayVerdict,
  VERDICT_NAME,
} from "../../core/mismatch/corrections/types";
import styles from "./TokenCorrections.module.css";

/** Every correction replayed on the shown trajectory (mismatch mode), for the token details. */
export interface TrajectoryReplays {
  readonly rows: readonly ReplayRow[];
  readonly replays: readonly Replay[];
}

const nameOf = (v: TokenVerdict) => VERDICT_NAME[v.verdict as ReplayVerdict];

/** The corrections of one verdict named in one line, each carrying its verdict and reason. */
function NamedLine({ label, list }: { readonly label: string; readonly list: TokenVerdict[] }) {
  if (list.length === 0) return null;
  return (
    <div className={styles.line}>
      {label}{" "}
      {list.map((v, i) => (
        <span key={v.name} data-correction={v.name} data-verdict={nameOf(v)} title={v.reason}>
          {i > 0 && ", "}
          {v.name}
        </span>
      ))}
    </div>
  );
}

/**
 * Per token, who masked, clipped or weighted it and why (docs/mismatch.md "Every correction
 * replayed"); those that kept it, and those that could not decide (no advantage), in a line each.
 */
export function TokenCorrections({
  replays,
  token,
}: {
  readonly replays: TrajectoryReplays;
  readonly token: number;
}) {
  const all = verdictsAt(replays.replays, replays.rows, 0, token);
  if (all.length === 0) return null;
  const acted = all.filter((v) => v.verdict !== REPLAY.kept && v.verdict !== REPLAY.unchecked);
  const unchecked = all.filter((v) => v.verdict === REPLAY.unchecked);
  return (
    <div className={styles.box} data-testid="token-corrections">
      <div className={styles.title}>who masked, clipped or weighted this token, and why</div>
      {acted.length === 0 && <div className={styles.line}>no correction touched it</div>}
      <ul className={styles.list}>
        {acted.map((v) => (
          <li key={v.name} data-correction={v.name} data-verdict={nameOf(v)}>
            <span className={styles[nameOf(v)]}>{nameOf(v)}</span> {v.reason}
          </li>
        ))}
      </ul>
      <NamedLine label="kept (weight r):" list={all.filter((v) => v.verdict === REPLAY.kept)} />
      <NamedLine label="unchecked, no advantage for this row:" list={unchecked} />
    </div>
  );
}
