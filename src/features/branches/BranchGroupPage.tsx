import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { episodeQueries } from "../../api/episodes";
import { forestOfTrajectories } from "../../core/forest/forestOf";
import { departureIndex } from "../../core/tito/fork";
import type { Trajectory } from "../../core/trajectory/types";
import type { EpisodeSummary } from "../../core/wire/episodes";
import { ForestView } from "../forest/ForestView";
import styles from "./BranchGroupPage.module.css";

const idsOf = (t: Trajectory | undefined) => t?.segments.flatMap((s) => [...s.tokenIds]) ?? [];

/** The branches of episode `id` (forked at `at`, or all), their loaded details and their forest. */
function useBranchGroup(id: string, at: number | undefined) {
  const list = useQuery({
    ...episodeQueries.list(),
    refetchInterval: (query) =>
      query.state.data?.episodes.some((e) => e.parentId === id && e.status === "running")
        ? 500
        : false,
  });
  // A file row's branches have a parent that is not an episode: no departure column then.
  const parent = useQuery({ ...episodeQueries.detail(id), retry: false });
  const branches = (list.data ?? [])
    .filter((e) => e.parentId === id && (at === undefined || e.forkIndex === at))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const details = useQueries({
    queries: branches.map((b) => ({
      ...episodeQueries.detail(b.id),
      enabled: b.status !== "running",
    })),
  });
  const loaded = details.flatMap((d) => d.data ?? []);
  const members = parent.data ? [parent.data, ...loaded] : loaded;
  const isComplete = loaded.length === branches.length && loaded.length > 0;
  // Small groups (≤ 64 branches): built here with the same core function the file worker runs.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the member ids name the members
  const forest = useMemo(
    () => (isComplete ? forestOfTrajectories({ key: id, kind: "branches" }, members) : undefined),
    [isComplete, id, members.map((m) => m.id).join(",")],
  );
  return { list, parent, branches, details, members, forest };
}

/** Up to two picked branch ids; picking a third drops the oldest. */
function usePickedPair() {
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (branchId: string) =>
    setPicked((p) =>
      p.includes(branchId) ? p.filter((x) => x !== branchId) : [...p, branchId].slice(-2),
    );
  return { picked, toggle };
}

/**
 * `/episodes/:id/branches?at=N`: the branches of an episode (those forked at N, or all), with their
 * status, reward, length and the token where each leaves the parent; pick two to see side by side.
 */
export function BranchGroupPage() {
  const { id = "" } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const atParam = searchParams.get("at");
  const at = atParam !== null && /^\d+$/.test(atParam) ? Number(atParam) : undefined;
  const { list, parent, branches, details, members, forest } = useBranchGroup(id, at);
  const { picked, toggle } = usePickedPair();
  const parentIds = idsOf(parent.data);
  const branchParam = searchParams.get("branch");
  const from = at ?? branches[0]?.forkIndex ?? 0;
  const [a, b] = picked;
  return (
    <div className={styles.page}>
      <nav className={styles.nav}>
        <Link to={`/episodes/${encodeURIComponent(id)}`}>← {id}</Link>
        <span>
          {branches.length} branch{branches.length === 1 ? "" : "es"}
          {at !== undefined && ` forked at token #${at}`}
        </span>
        {a && b ? (
          <Link
            data-testid="compare-branches"
            to={`/episodes/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}?from=${from}`}
          >
            side by side from #{from}
          </Link>
        ) : (
          <span className={styles.muted}>pick two to see them side by side</span>
        )}
      </nav>
      {list.error && <p className={styles.error}>{list.error.message}</p>}
      <table className={styles.table} data-testid="branch-group">
        <thead>
          <tr>
            <th />
            <th>branch</th>
            <th>status</th>
            <th>reward</th>
            <th>tokens</th>
            <th>fork</th>
            <th>departs at</th>
          </tr>
        </thead>
        <tbody>
          {branches.map((branch, i) => (
            <BranchRow
              key={branch.id}
              branch={branch}
              detail={details[i]?.data}
              parent={parent.data}
              parentIds={parentIds}
              hasNoParent={parent.isError}
              isPicked={picked.includes(branch.id)}
              onToggle={() => toggle(branch.id)}
            />
          ))}
        </tbody>
      </table>
      {forest && (
        <section aria-label="branch forest" className={styles.forest}>
          <ForestView
            forest={forest}
            selectedBranch={branchParam === null ? undefined : Number(branchParam)}
            onSelectBranch={(index) => {
              const next = new URLSearchParams(searchParams);
              next.set("branch", String(index));
              setSearchParams(next);
            }}
            compareHref={(x, y, index) => {
              const [left, right] = [members[x]?.id ?? "", members[y]?.id ?? ""];
              return `/episodes/compare/${encodeURIComponent(left)}/${encodeURIComponent(right)}?from=${index}`;
            }}
            memberHref={(m) => `/episodes/${encodeURIComponent(members[m]?.id ?? "")}`}
          />
        </section>
      )}
    </div>
  );
}

interface BranchRowProps {
  readonly branch: EpisodeSummary;
  readonly detail: Trajectory | undefined;
  readonly parent: Trajectory | undefined;
  readonly parentIds: readonly number[];
  /** The parent is not an episode (a file row): no departure to show. */
  readonly hasNoParent: boolean;
  readonly isPicked: boolean;
  readonly onToggle: () => void;
}

/** One branch: pick box, link, status, reward, length, fork token and where it departs. */
function BranchRow({
  branch,
  detail,
  parent,
  parentIds,
  hasNoParent,
  isPicked,
  onToggle,
}: BranchRowProps) {
  const departs =
    detail && parent ? departureIndex(parentIds, idsOf(detail), branch.forkIndex ?? 0) : undefined;
  const edited = detail?.lineage?.editedToolResults !== undefined;
  return (
    <tr data-testid="branch-row" data-episode={branch.id}>
      <td>
        <input
          type="checkbox"
          aria-label={`pick ${branch.id}`}
          checked={isPicked}
          onChange={onToggle}
        />
      </td>
      <td>
        <Link to={`/episodes/${encodeURIComponent(branch.id)}`}>{branch.id}</Link>
        {edited && <span className={styles.edited}> edited tool result</span>}
      </td>
      <td className={styles[branch.status]}>{branch.status}</td>
      <td>{branch.reward ?? "—"}</td>
      <td>{branch.tokens.toLocaleString("en-US")}</td>
      <td>#{branch.forkIndex}</td>
      <td data-testid="branch-departs">
        {hasNoParent ? (
          "—"
        ) : departs === undefined ? (
          "…"
        ) : departs >= parentIds.length && departs >= idsOf(detail).length ? (
          "same as parent"
        ) : (
          <Link
            to={`/episodes/${encodeURIComponent(branch.id)}?token=${departs}`}
          >{`#${departs}`}</Link>
        )}
      </td>
    </tr>
  );
}
