import { useMemo } from "react";
import { Link } from "react-router";
import type { GroupForest } from "../../core/forest/groupForest";
import { type IcicleLayout, type IcicleRect, icicleLayout } from "../../core/forest/icicle";
import type { BranchPoint } from "../../core/forest/prefixTree";
import { formatReward } from "../../core/series/formatReward";
import styles from "./ForestView.module.css";

export interface ForestViewProps {
  readonly forest: GroupForest;
  /** The token index of the branch point shown in the side list (`?branch=N`). */
  readonly selectedBranch: number | undefined;
  readonly onSelectBranch: (index: number) => void;
  /** Where "side by side" of two members from a branch point goes. */
  readonly compareHref: (a: number, b: number, from: number) => string;
  /** Where a member's own page is. */
  readonly memberHref: (m: number) => string;
}

const WIDTH = 1000;
const LANE = 18;

function rewardColour(reward: number | undefined, lo: number, hi: number): string {
  if (reward === undefined) return "var(--forest-no-reward)";
  const t = hi === lo ? 0.5 : (reward - lo) / (hi - lo);
  return `hsl(${Math.round(t * 120)} 65% 48%)`;
}

function Rect({ r, layout, fill }: { r: IcicleRect; layout: IcicleLayout; fill: string }) {
  const x = (r.start / layout.tokens) * WIDTH;
  const w = Math.max(1, ((r.end - r.start) / layout.tokens) * WIDTH);
  const y = r.lane0 * LANE;
  const h = (r.lane1 - r.lane0) * LANE - 2;
  const span = r.end - r.start;
  return (
    <g data-testid="forest-node" data-members={r.members.join(",")}>
      <rect x={x} y={y} width={w} height={h} fill={fill} className={styles.node}>
        <title>
          {`tokens ${r.start}–${r.end} (${span.toLocaleString("en-US")}) · members ${r.members.join(", ")}` +
            (r.multiplied > 0 ? ` · ${r.multiplied} tokens trained by more than one member` : "")}
        </title>
      </rect>
      {r.multiplied > 0 && (
        <rect
          x={x}
          y={y}
          width={w}
          height={h}
          className={styles.multiplied}
          opacity={Math.min(0.8, Math.max(0.12, r.multiplied / Math.max(1, span)))}
          data-testid="forest-multiplied"
        />
      )}
      {r.isLeaf && r.members.length > 1 && (
        <text x={x + w - 4} y={y + h - 4} textAnchor="end" className={styles.count}>
          ×{r.members.length}
        </text>
      )}
    </g>
  );
}

/** What the icicle's colours mean: the shared prefix, and a lane's reward from lowest to highest. */
function ForestLegend({ rewards }: { readonly rewards: readonly number[] }) {
  const lo = Math.min(...rewards);
  const hi = Math.max(...rewards);
  const swatch = (background: string) => (
    <span className={styles.swatch} style={{ background }} aria-hidden="true" />
  );
  return (
    <p className={styles.legend} data-testid="forest-legend">
      {swatch("var(--forest-shared)")} tokens members share · each lane after it: one member's own
      tokens (hover for the span),{" "}
      {rewards.length === 0 ? (
        <>{swatch("var(--forest-no-reward)")} no reward recorded</>
      ) : hi === lo ? (
        <>
          {swatch(rewardColour(lo, lo, hi))} every member's reward {formatReward(lo)}
        </>
      ) : (
        <>
          coloured by reward: {swatch(rewardColour(lo, lo, hi))} lowest {formatReward(lo)} to{" "}
          {swatch(rewardColour(hi, lo, hi))} highest {formatReward(hi)}
        </>
      )}
    </p>
  );
}

/**
 * A group whose members are text only (no token ids): no tree to draw, so its members are listed
 * with their rewards, each linking to its text.
 */
function TextOnlyMembers({ forest, memberHref }: ForestViewProps) {
  return (
    <div className={styles.branches} data-testid="forest-text-only">
      <span>no token tree: the members are text only (no token ids) ·</span>
      {forest.members.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: members keep their order; the index is their name
        <Link key={i} to={memberHref(i)}>
          member {i}
          {m.reward === undefined ? "" : ` · reward ${formatReward(m.reward)}`}
        </Link>
      ))}
    </div>
  );
}

/** The icicle of a group's forest: shared prefix on the left, one lane per distinct member. */
export function ForestView(props: ForestViewProps) {
  const { forest } = props;
  return (
    <div className={styles.forest}>
      <ForestFindings causes={forest.causes} />
      {forest.isTokenChecked ? <ForestIcicle {...props} /> : <TextOnlyMembers {...props} />}
    </div>
  );
}

/** The group's findings as badges, or that there are none. */
function ForestFindings({ causes }: { readonly causes: readonly string[] }) {
  return (
    <ul className={styles.badges} aria-label="findings">
      {causes.length === 0 && (
        <li className={styles.clean}>
          no finding: no duplicates, zero variance, multiplicity, demoted tokens, advantage or
          recorded-tree disagreement
        </li>
      )}
      {causes.map((c) => (
        <li key={c} className={styles.badge} data-testid="forest-cause">
          {c}
        </li>
      ))}
    </ul>
  );
}

/** The icicle, its legend and its branch points (the one selected with its children). */
function ForestIcicle(props: ForestViewProps) {
  const { forest, selectedBranch, onSelectBranch } = props;
  const layout = useMemo(() => icicleLayout(forest), [forest]);
  const rewards = forest.members.flatMap((m) => (m.reward === undefined ? [] : [m.reward]));
  const lo = Math.min(...rewards);
  const hi = Math.max(...rewards);
  const point = forest.branchPoints.find((p) => p.index === selectedBranch);
  return (
    <>
      <svg
        className={styles.svg}
        viewBox={`0 0 ${WIDTH} ${layout.lanes * LANE}`}
        width={WIDTH}
        height={layout.lanes * LANE}
        role="img"
        aria-label={`forest of ${forest.size} members`}
      >
        {layout.rects.map((r) => (
          <Rect
            key={r.node}
            r={r}
            layout={layout}
            fill={r.isLeaf ? rewardColour(r.reward, lo, hi) : "var(--forest-shared)"}
          />
        ))}
      </svg>
      <ForestLegend rewards={rewards} />
      <div className={styles.branches}>
        {layout.branches.map((b) => (
          <button
            key={b.node}
            type="button"
            className={b.index === selectedBranch ? styles.selected : undefined}
            data-testid="branch-point"
            onClick={() => onSelectBranch(b.index)}
          >
            branch at #{b.index.toLocaleString("en-US")}
          </button>
        ))}
        {layout.branches.length === 0 && <span>no branch point: the members never part</span>}
      </div>
      {point && <BranchChildren point={point} {...props} />}
    </>
  );
}

function BranchChildren({
  point,
  forest,
  compareHref,
  memberHref,
}: ForestViewProps & { point: BranchPoint }) {
  const [first, ...rest] = point.children;
  const left = first?.members[0];
  return (
    <table className={styles.children} data-testid="branch-children">
      <thead>
        <tr>
          <th>child</th>
          <th>members</th>
          <th>first token</th>
          <th>logprob</th>
          <th>side by side from #{point.index}</th>
        </tr>
      </thead>
      <tbody>
        {point.children.map((c, k) => {
          const m = c.members[0] ?? 0;
          return (
            <tr key={c.members.join(",")}>
              <td>{k}</td>
              <td>
                {c.members.map((x) => (
                  <Link key={x} to={memberHref(x)} className={styles.member}>
                    {forest.members[x]?.id ?? x}
                  </Link>
                ))}
              </td>
              <td>{c.token === undefined ? "(ends)" : c.token}</td>
              <td>{c.logprob === undefined ? "—" : c.logprob.toFixed(3)}</td>
              <td>
                {k > 0 && left !== undefined && rest.length > 0 && (
                  <Link data-testid="compare-children" to={compareHref(left, m, point.index)}>
                    child 0 vs child {k}
                  </Link>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
