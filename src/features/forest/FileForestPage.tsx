import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { FileMissing } from "../rollouts/FileMissing";
import { useFileClient, useRolloutFileState } from "../rollouts/openFiles";
import styles from "./FileForestPage.module.css";
import { ForestView } from "./ForestView";

const membersText = (n: number) => `${n} member${n === 1 ? "" : "s"}`;

/** `/files/:fileId/groups/:group?branch=N`: a group's forest, built in the file's worker. */
export function FileForestPage() {
  const { fileId = "", group = "" } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const branchParam = searchParams.get("branch");
  const branch =
    branchParam !== null && /^\d+$/.test(branchParam) ? Number(branchParam) : undefined;
  const { client, reason } = useFileClient(fileId);
  const state = useRolloutFileState(client);
  const rows = state?.rows;
  // Rows grow in place as the file is indexed: `version` marks growth (a deep link opens this page
  // before the file's rows are in).
  const version = state?.version;
  // biome-ignore lint/correctness/useExhaustiveDependencies: rows grow in place; version marks growth
  const indices = useMemo(
    () => (rows ?? []).filter((r) => r.group === group).map((r) => r.index),
    [rows, group, version],
  );
  const forest = useQuery({
    queryKey: ["rollout-file", fileId, "forest", group, indices.join(",")],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.forest(group, indices);
    },
    enabled: client !== undefined && indices.length > 0,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!client || !state) return <FileMissing reason={reason} />;
  const rowOf = (m: number) => indices[m] ?? 0;
  return (
    <div className={styles.page}>
      <nav className={styles.nav} aria-label="forest navigation">
        <Link to={`/files/${fileId}`}>← {state.name}</Link>
        <Link to={`/files/${fileId}?group=${encodeURIComponent(group)}`}>
          rows of group {group}
        </Link>
        <span>
          group <strong data-testid="forest-group">{group}</strong> · {membersText(indices.length)}
          {forest.data &&
            ` · ${forest.data.kind}${forest.data.isRecorded ? " (recorded tree)" : ""}`}
        </span>
      </nav>
      {indices.length === 0 && (
        <p>
          no rows of group {group} in this file{state.caughtUp ? "" : " yet"}
        </p>
      )}
      {forest.isPending && indices.length > 0 && (
        <p>building the forest of {membersText(indices.length)}…</p>
      )}
      {forest.error && <p className={styles.error}>{forest.error.message}</p>}
      {forest.data && (
        <ForestView
          forest={forest.data}
          selectedBranch={branch}
          onSelectBranch={(index) => setSearchParams({ branch: String(index) })}
          compareHref={(a, b, from) =>
            `/files/${fileId}/compare/${rowOf(a)}/${rowOf(b)}?from=${from}`
          }
          memberHref={(m) => `/files/${fileId}/${rowOf(m)}`}
        />
      )}
    </div>
  );
}
