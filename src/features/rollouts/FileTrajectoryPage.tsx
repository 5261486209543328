import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { TrajectoryView } from "../trajectory-view/TrajectoryView";
import styles from "./FileTrajectoryPage.module.css";
import { fileClient, useRolloutFileState } from "./openFiles";
import { useFileOrder } from "./useFileRows";
import { useRowQuery } from "./useRowQuery";

/** `/files/:fileId/:row`: one trajectory of a file, parsed from its line on demand; n/p step. */
export function FileTrajectoryPage() {
  const { fileId = "", row = "" } = useParams();
  // A fresh page per sample: scroll position, selection and the pending read start clean.
  return <FileTrajectory key={`${fileId}/${row}`} />;
}

function FileTrajectory() {
  const { fileId = "", row: rowParam = "" } = useParams();
  const rowIndex = /^\d+$/.test(rowParam) ? Number(rowParam) : -1;
  const navigate = useNavigate();
  const client = fileClient(fileId);
  const state = useRolloutFileState(client);
  const [query, , search] = useRowQuery();
  const order = useFileOrder(state, query);
  const position = order.indexOf(rowIndex);
  const summary = state?.rows[rowIndex];
  const trajectory = useQuery({
    queryKey: ["rollout-file", fileId, rowIndex],
    queryFn: () => {
      if (!client) throw new Error("file is not open");
      return client.read(rowIndex);
    },
    enabled: client !== undefined && summary !== undefined,
    // A line's bytes do not change (files are append-only), so its parse never goes stale.
    staleTime: Number.POSITIVE_INFINITY,
  });

  const suffix = search ? `?${search}` : "";
  const prev = position > 0 ? order[position - 1] : undefined;
  const next = position >= 0 ? order[position + 1] : undefined;
  useEffect(() => {
    const handleKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLInputElement || event.metaKey || event.ctrlKey) return;
      if (event.key === "n" && next !== undefined) navigate(`/files/${fileId}/${next}${suffix}`);
      else if (event.key === "p" && prev !== undefined)
        navigate(`/files/${fileId}/${prev}${suffix}`);
      else if (event.key === "Escape") navigate(`/files/${fileId}${suffix}`);
    };
    window.addEventListener("keydown", handleKey);
    return () => window.removeEventListener("keydown", handleKey);
  }, [fileId, navigate, next, prev, suffix]);

  if (!client) {
    return (
      <p>
        This file is not open in this tab. <Link to="/files">Open it again</Link>.
      </p>
    );
  }
  return (
    <div className={styles.page}>
      <nav className={styles.nav} aria-label="trajectory navigation">
        <Link to={`/files/${fileId}${suffix}`}>← {state?.name ?? "file"}</Link>
        {prev !== undefined && <Link to={`/files/${fileId}/${prev}${suffix}`}>‹ prev (p)</Link>}
        {next !== undefined && <Link to={`/files/${fileId}/${next}${suffix}`}>next (n) ›</Link>}
        <span className={styles.meta} data-testid="sample-position">
          {position >= 0 ? `${position + 1} of ${order.length}` : "not in the filtered set"}
        </span>
        {summary && (
          <span className={styles.meta}>
            <strong>{summary.id}</strong> · line {summary.line} · {summary.status} · reward{" "}
            {summary.reward ?? "—"} · {summary.totalTokens.toLocaleString("en-US")} tokens
            {summary.group !== undefined && ` · group ${summary.group}`}
          </span>
        )}
      </nav>
      {trajectory.isError && <p className={styles.error}>{trajectory.error.message}</p>}
      {trajectory.isPending && summary && (
        <p className={styles.meta}>reading line {summary.line}…</p>
      )}
      {trajectory.data && (
        <div className={styles.view}>
          <TrajectoryView trajectory={trajectory.data} />
        </div>
      )}
    </div>
  );
}
