import { memo, useMemo } from "react";
import { revealInvisible } from "../../core/layout/displayPiece";
import { segmentOfToken } from "../../core/layout/flatTrajectory";
import { type Decomposition, TERM } from "../../core/mismatch/decomposition";
import { type Correction, tokenMismatch, VERDICT } from "../../core/mismatch/mismatch";
import { type RoutingView, routingDiffersAt } from "../../core/mismatch/routing";
import { forkKind } from "../../core/tito/fork";
import { type TokenExtras, tokenExtras } from "../../core/trajectory/tokenExtras";
import type { TopLogprob, Trajectory } from "../../core/trajectory/types";
import styles from "./DetailsPanel.module.css";
import { CORRECTION_LABEL, KIND_LABEL } from "./kindLabels";
import { TokenCorrections, type TrajectoryReplays } from "./TokenCorrections";
import type { LanePair } from "./useMismatch";
import type { TrajectoryModel } from "./useTrajectoryModel";

interface DetailsPanelProps {
  readonly trajectory: Trajectory;
  readonly model: TrajectoryModel;
  /** Token index to describe; undefined shows the hint. */
  readonly token: number | undefined;
  /** Each top-k alternative's piece decoded on its own (useAlternativePieces), once it arrives. */
  readonly alternatives?: ReadonlyMap<number, string> | undefined;
  /** Offers "Branch here" on tokens a branch can start at. */
  readonly onBranch?: (token: number) => void;
  /** The two lanes compared (docs/mismatch.md), when the trajectory has a second lane. */
  readonly lanePair?: LanePair | undefined;
  /** Mismatch mode: the MoE routing compared (the layers where this token's experts differ). */
  readonly routing?: RoutingView | undefined;
  /** Mismatch mode: every correction replayed on the trajectory (who masked this token and why). */
  readonly replays?: TrajectoryReplays | undefined;
  /** Set while a long trajectory's replays wait: replays every correction for the details. */
  readonly onAskReplays?: (() => void) | undefined;
  /** Mismatch mode: the replayed correction and its verdict per token. */
  readonly verdicts?: { readonly correction: Correction; readonly verdict: Uint8Array } | undefined;
  /** Mismatch mode: δ split into temperature, support and residual (docs/mismatch.md). */
  readonly decomposition?: Decomposition | undefined;
}

/** The piece of a token id (as first seen in this trajectory), for the top-k list; built on first use. */
function usePieceOfId(model: TrajectoryModel): (id: number) => string | undefined {
  const { flat, pieces } = model;
  return useMemo(() => {
    let map: Map<number, string> | undefined;
    return (id: number) => {
      if (!map) {
        map = new Map();
        for (let t = 0; t < flat.tokenCount; t++) {
          const tokenId = flat.tokenIds[t] ?? 0;
          if (!map.has(tokenId)) map.set(tokenId, pieces[t] ?? "");
        }
      }
      return map.get(id);
    };
  }, [flat, pieces]);
}

function formatLogprob(lp: number): string {
  // Near-certain tokens would all read -0.0000; keep their magnitude visible.
  return lp !== 0 && Math.abs(lp) < 1e-3 ? lp.toExponential(2) : lp.toFixed(4);
}

function formatProbability(lp: number): string {
  const p = Math.exp(lp);
  return p >= 0.001 ? `${(p * 100).toFixed(2)} %` : p.toExponential(2);
}

const VERDICT_LABEL: Readonly<Record<number, string>> = {
  [VERDICT.none]: "not compared",
  [VERDICT.kept]: "kept",
  [VERDICT.clipped]: "clipped",
  [VERDICT.masked]: "masked",
};

function LaneRows({
  pair,
  token,
  verdicts,
}: {
  pair: LanePair;
  token: number;
  verdicts: DetailsPanelProps["verdicts"];
}) {
  const a = pair.a[token] ?? null;
  const b = pair.b[token] ?? null;
  const m = tokenMismatch(a, b);
  const value = (lp: number | null) =>
    lp === null ? (
      <span className={styles.muted}>none</span>
    ) : (
      `${formatLogprob(lp)} (${formatProbability(lp)})`
    );
  const verdict = verdicts?.verdict[token];
  return (
    <>
      <dt>{pair.names[0]}</dt>
      <dd data-testid="detail-lane-a">{value(a)}</dd>
      <dt>{pair.names[1]}</dt>
      <dd data-testid="detail-lane-b">{value(b)}</dd>
      <dt>δ</dt>
      <dd data-testid="detail-delta">{m ? formatLogprob(m.delta) : "—"}</dd>
      <dt>r</dt>
      <dd data-testid="detail-ratio">{m ? m.r.toPrecision(6) : "—"}</dd>
      <dt>|Δp|</dt>
      <dd data-testid="detail-dp">{m ? m.absDp.toExponential(3) : "—"}</dd>
      <dt>k3</dt>
      <dd data-testid="detail-k3">{m ? m.k3.toExponential(3) : "—"}</dd>
      {verdicts && verdict !== undefined && (
        <>
          <dt>{CORRECTION_LABEL[verdicts.correction.kind]}</dt>
          <dd data-testid="detail-verdict" data-verdict={VERDICT_LABEL[verdict]}>
            {VERDICT_LABEL[verdict]}
          </dd>
        </>
      )}
    </>
  );
}

/** One term of the token's decomposition, with its quality: exact, approximate or unknown. */
function term(value: number | undefined, isApprox: boolean, isUnknown: boolean): string {
  if (isUnknown || value === undefined || Number.isNaN(value)) return "unknown";
  return `${formatLogprob(value)}${isApprox ? " (approximate)" : ""}`;
}

/** Where this token's δ comes from: temperature, truncated support, residual. */
function DecompositionRows({ d, token }: { d: Decomposition; token: number }) {
  const s = d.status[token] ?? 0;
  if ((s & TERM.compared) === 0) return null;
  const tUnknown = (s & TERM.temperatureUnknown) !== 0;
  const sUnknown = (s & TERM.supportUnknown) !== 0;
  const kept = (s & TERM.keptComputed) !== 0 ? ", kept set from top_p/top_k" : "";
  return (
    <>
      <dt>temperature</dt>
      <dd data-testid="detail-temperature">
        {term(d.temperature[token], (s & TERM.temperatureApprox) !== 0, tUnknown)}
      </dd>
      <dt>support</dt>
      <dd data-testid="detail-support">
        {term(d.support[token], (s & TERM.supportApprox) !== 0, sUnknown)}
        {sUnknown ? "" : kept}
      </dd>
      <dt>residual</dt>
      <dd data-testid="detail-residual">
        {term(
          d.residual[token],
          (s & (TERM.temperatureApprox | TERM.supportApprox)) !== 0,
          tUnknown || sUnknown,
        )}
      </dd>
    </>
  );
}

/** The layers where this token's two routing arrays differ (docs/mismatch.md "MoE routing"). */
function RoutingRows({
  view,
  token,
}: {
  view: Extract<RoutingView, { kind: "two" }>;
  token: number;
}) {
  const [a, b] = view.arrays;
  const differ = routingDiffersAt(a, b, token);
  return (
    <>
      <dt>routing</dt>
      <dd data-testid="detail-routing">
        {differ === undefined
          ? "not routed in both"
          : differ.length === 0
            ? `every layer agrees (${a.name} = ${b.name})`
            : differ
                .map((d) => `layer ${d.layer}: ${d.a.join(",")} vs ${d.b.join(",")}`)
                .join("; ")}
      </dd>
    </>
  );
}

/** What a slime/miles dump keeps per token: routed experts, top-p nucleus, advantage, entropy. */
function ExtraRows({ extras }: { extras: TokenExtras }) {
  return (
    <>
      {extras.routedExperts && (
        <>
          <dt>routed experts</dt>
          <dd data-testid="detail-routed-experts">
            {extras.routedExperts.map((ids, layer) => `L${layer}: ${ids.join(" ")}`).join(" · ")}
          </dd>
        </>
      )}
      {extras.topPKept && (
        <>
          <dt>top-p kept</dt>
          <dd data-testid="detail-top-p">{extras.topPKept.join(" ")}</dd>
        </>
      )}
      {extras.advantage !== undefined && (
        <>
          <dt>advantage</dt>
          <dd data-testid="detail-advantage">{extras.advantage.toPrecision(4)}</dd>
        </>
      )}
      {extras.entropy !== undefined && (
        <>
          <dt>entropy</dt>
          <dd data-testid="detail-entropy">{extras.entropy.toPrecision(4)}</dd>
        </>
      )}
    </>
  );
}

/** The sampled token's logprob, probability and rank among the recorded top-k. */
function LogprobRows({
  logprob: lp,
  chosenId,
  top,
}: {
  readonly logprob: number;
  readonly chosenId: number;
  readonly top: readonly TopLogprob[] | undefined;
}) {
  const rankIndex = top ? top.findIndex((alt) => alt.tokenId === chosenId) : -1;
  return (
    <>
      <dt>logprob</dt>
      <dd data-testid="detail-logprob">
        {Number.isNaN(lp) ? <span className={styles.muted}>not recorded</span> : formatLogprob(lp)}
      </dd>
      <dt>probability</dt>
      <dd>{Number.isNaN(lp) ? "—" : formatProbability(lp)}</dd>
      <dt>rank</dt>
      <dd>
        {top === undefined
          ? "—"
          : rankIndex >= 0
            ? `${rankIndex + 1} of top ${top.length}`
            : `not in top ${top.length}`}
      </dd>
    </>
  );
}

/** The recorded top-k alternatives, the sampled one marked; `pieceOf` prints an id's piece. */
function TopKTable({
  top,
  chosenId,
  pieceOf,
}: {
  readonly top: readonly TopLogprob[];
  readonly chosenId: number;
  readonly pieceOf: (id: number) => string;
}) {
  return (
    <table className={styles.top} data-testid="top-k">
      <caption>top-{top.length} alternatives</caption>
      <thead>
        <tr>
          <th>piece</th>
          <th>id</th>
          <th>logprob</th>
          <th>p</th>
        </tr>
      </thead>
      <tbody>
        {top.map((alt) => (
          <tr key={alt.tokenId} className={alt.tokenId === chosenId ? styles.chosen : undefined}>
            <td>
              <code data-testid="top-k-piece">{pieceOf(alt.tokenId)}</code>
            </td>
            <td>{alt.tokenId}</td>
            <td>{formatLogprob(alt.logprob)}</td>
            <td>{formatProbability(alt.logprob)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Everything known about one token: position, id, piece, logprob, rank, top-k, segment, turn. */
/** Memoized: the view re-renders on every scroll frame, the details only when the token changes. */
export const DetailsPanel = memo(function DetailsPanel({
  trajectory,
  model,
  token,
  onBranch,
  alternatives,
  lanePair,
  verdicts,
  replays,
  onAskReplays,
  routing,
  decomposition,
}: DetailsPanelProps) {
  const { flat, pieces } = model;
  const pieceOfId = usePieceOfId(model);
  // Decoded on its own by the tokenizer; else as it reads in this trajectory; else its id.
  const alternativePiece = (id: number) => {
    const piece = alternatives?.get(id) ?? pieceOfId(id);
    return piece === undefined ? `#${id}` : revealInvisible(JSON.stringify(piece));
  };
  if (token === undefined || token < 0 || token >= flat.tokenCount) {
    return (
      <aside className={styles.panel} data-testid="token-details">
        <p className={styles.hint}>Hover a token, or click one and use ← → to step.</p>
      </aside>
    );
  }
  const s = segmentOfToken(flat.segmentStarts, token);
  const segment = trajectory.segments[s];
  const local = token - (flat.segmentStarts[s] ?? 0);
  const lp = flat.logprobs[token] ?? Number.NaN;
  const id = flat.tokenIds[token] ?? 0;
  const top = segment?.topLogprobs?.[local] ?? undefined;
  const branchable = onBranch !== undefined && forkKind(trajectory.segments, token) !== undefined;
  return (
    <aside className={styles.panel} data-testid="token-details">
      {branchable && (
        <button
          type="button"
          className={styles.branch}
          data-testid="branch-here"
          title="Start new episodes from exactly this token's prefix (b)"
          onClick={() => onBranch(token)}
        >
          Branch here
        </button>
      )}
      <dl className={styles.grid}>
        <dt>position</dt>
        <dd data-testid="detail-position">#{token}</dd>
        <dt>token id</dt>
        <dd>{id}</dd>
        <dt>piece</dt>
        <dd>
          <code className={styles.piece}>
            {revealInvisible(JSON.stringify(pieces[token] ?? ""))}
          </code>
        </dd>
        <LogprobRows logprob={lp} chosenId={id} top={top} />
        {lanePair && <LaneRows pair={lanePair} token={token} verdicts={verdicts} />}
        {lanePair && decomposition && <DecompositionRows d={decomposition} token={token} />}
        {routing?.kind === "two" && <RoutingRows view={routing} token={token} />}
        <dt>loss mask</dt>
        <dd>{flat.lossMask[token]}</dd>
        <dt>segment</dt>
        <dd>
          {s} ·{" "}
          {segment?.untrained
            ? "model output · mask 0 (not trained)"
            : segment
              ? KIND_LABEL[segment.kind]
              : "?"}
        </dd>
        <dt>turn</dt>
        <dd>{segment?.turn}</dd>
        <ExtraRows extras={tokenExtras(trajectory, token)} />
      </dl>
      {replays && <TokenCorrections replays={replays} token={token} />}
      {onAskReplays && (
        <button type="button" data-testid="ask-replays" onClick={onAskReplays}>
          Who masked this token? (replays 16 corrections over {flat.tokenCount} tokens)
        </button>
      )}
      {top && top.length > 0 && <TopKTable top={top} chosenId={id} pieceOf={alternativePiece} />}
    </aside>
  );
});
