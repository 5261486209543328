import { memo } from "react";
import type { PolicySpan, PolicyVersions } from "../../core/trajectory/policyVersions";
import styles from "./PolicyStrip.module.css";

/** The class of a span by its staleness: current, one behind, further behind, or unknown. */
function stalenessClass(span: PolicySpan): string {
  if (span.staleness === undefined) return styles.unknown ?? "";
  if (span.staleness === 0) return styles.current ?? "";
  return (span.staleness === 1 ? styles.behind : styles.stale) ?? "";
}

function stalenessText(span: PolicySpan): string {
  if (span.staleness === undefined) return "not the newest";
  if (span.staleness === 0) return "newest";
  return `${span.staleness} behind`;
}

/**
 * Which policy version generated each span of tokens (docs/format.md, Policy versions): one strip
 * along the trajectory, each span placed at its tokens and coloured by its staleness against the
 * newest version; click a span to go to its first token. Nothing when the record has no versions.
 */
export const PolicyStrip = memo(function PolicyStrip({
  versions,
  tokenCount,
  onPick,
}: {
  readonly versions: PolicyVersions | undefined;
  readonly tokenCount: number;
  readonly onPick: (token: number) => void;
}) {
  if (!versions || tokenCount === 0) return null;
  const maxStale = Math.max(0, ...versions.spans.map((s) => s.staleness ?? 0));
  return (
    <div className={styles.row} data-testid="policy-strip">
      <span className={styles.caption} title={`from ${versions.source}`}>
        policy versions · newest {versions.latest}
        {maxStale > 0 && ` · up to ${maxStale} behind`}
      </span>
      <div className={styles.strip}>
        {versions.spans.map((span) => (
          <button
            type="button"
            key={span.start}
            className={`${styles.span} ${stalenessClass(span)}`}
            style={{
              left: `${(span.start / tokenCount) * 100}%`,
              width: `${((span.end - span.start) / tokenCount) * 100}%`,
            }}
            data-version={span.version}
            data-staleness={span.staleness ?? ""}
            title={`tokens #${span.start}–#${span.end - 1}: version ${span.version} (${stalenessText(span)})`}
            onClick={() => onPick(span.start)}
          >
            {span.version}
          </button>
        ))}
      </div>
    </div>
  );
});
