import { useQuery } from "@tanstack/react-query";
import { type ChangeEvent, type DragEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { filesQueries } from "../../api/files";
import type { ServerFile } from "../../core/files/filesWire";
import { runPositionLabel } from "../../core/files/runSteps";
import styles from "./FilesPage.module.css";
import { formatBytes } from "./formatBytes";
import { openLocalFiles } from "./openFiles";
import { RunCharts } from "./RunCharts";

/** The server's files: plain ones, and each run's step files (in step order) under its name. */
function byRun(files: readonly ServerFile[]) {
  const runs = new Map<string, { name: string; files: ServerFile[] }>();
  const plain: ServerFile[] = [];
  for (const f of files) {
    if (!f.run) {
      plain.push(f);
      continue;
    }
    const run = runs.get(f.run.id) ?? { name: f.run.name, files: [] };
    run.files.push(f);
    runs.set(f.run.id, run);
  }
  return { plain, runs: [...runs.entries()] };
}

/** `/files`: open a local JSONL file (it never leaves the machine) or one the server was given. */
export function FilesPage() {
  const navigate = useNavigate();
  const [isDragging, setDragging] = useState(false);
  const serverFiles = useQuery(filesQueries.list());

  const open = (files: FileList | null | undefined) => {
    const id = openLocalFiles([...(files ?? [])]);
    if (id) navigate(`/files/${id}`);
  };
  const handleDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    open(event.dataTransfer.files);
  };
  const handlePick = (event: ChangeEvent<HTMLInputElement>) => open(event.target.files);
  const grouped = serverFiles.data && byRun(serverFiles.data.files);

  return (
    <section className={styles.page}>
      <label
        className={`${styles.drop} ${isDragging ? styles.dropActive : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={handleDrop}
      >
        <strong>Drop a rollout JSONL, Parquet or .pt file here, or choose a file</strong>
        <input
          type="file"
          accept=".jsonl,.json,.ndjson,.txt,.parquet,.pt,.pkl,.yaml"
          multiple
          onChange={handlePick}
          aria-label="rollout file"
        />
        <p className={styles.note}>
          rollout-lens/v1, slime, atropos, strands, verl, ATIF, NeMo-RL, prime-rl traces, SkyRL,
          AReaL, miles, ART or Tinker capture lines, a Parquet table of them, or a slime/miles
          torch.save dump (.pt). The file is read in your browser, in a worker, by byte range: it is
          never uploaded, and files larger than memory open.
        </p>
      </label>
      <h2>Files on the server</h2>
      {serverFiles.isPending && <p className={styles.note}>asking the server…</p>}
      {serverFiles.isError && (
        <p className={styles.note}>no server files ({serverFiles.error.message})</p>
      )}
      {grouped?.runs.map(([id, run]) => (
        <section key={id} aria-label={`run ${run.name}`}>
          <h3>
            Run {run.name}: {run.files.length} step files
          </h3>
          <RunCharts files={run.files} />
          <ul className={styles.list}>
            {run.files.map((f) => (
              <li key={f.id}>
                <Link to={`/files/${f.id}`}>{f.run ? runPositionLabel(f.run) : f.name}</Link>
                <span className={styles.note}>{f.name}</span>
                <span className={styles.size}>
                  {f.size === undefined ? "gone" : formatBytes(f.size)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {grouped && (
        <ul className={styles.list}>
          {grouped.plain.map((f) => (
            <li key={f.id}>
              {f.size === undefined ? (
                <span>{f.name}</span>
              ) : (
                <Link to={`/files/${f.id}`}>{f.name}</Link>
              )}
              <span className={styles.note}>
                {f.origin === "cli" ? "command line" : "live episodes"}
              </span>
              <span className={styles.size}>
                {f.size === undefined ? "not written yet" : formatBytes(f.size)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
