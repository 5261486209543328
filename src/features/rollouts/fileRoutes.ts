// Route ids of open files: a server file's is the id `GET /api/files` gives it (`f1`, `episodes`);
// a local file's is `local-<n>`, valid only in the tab that opened it.

/** Route id of the `n`th local file this tab opened. */
export function localFileId(n: number): string {
  return `local-${n}`;
}

/** Whether `fileId` names a local file (which no link can reopen) rather than a server file. */
export function isLocalFileId(fileId: string): boolean {
  return /^local-\d+$/.test(fileId);
}

// Server files were once routed as `srv-<id>`; links of that time must still land on the file.
const LEGACY_SERVER_FILE = /^\/files\/srv-([^/]+)(\/.*)?$/;

/** The path a link to `pathname` now lives at, when it names a server file the old way; else undefined. */
export function movedFilePath(pathname: string): string | undefined {
  const match = LEGACY_SERVER_FILE.exec(pathname);
  return match ? `/files/${match[1]}${match[2] ?? ""}` : undefined;
}

/**
 * A row page's query as its links to the list and to other rows carry it: the table's filters and
 * sort (and the drift check), without `token`, which names a token of this row only.
 */
export function listSearch(search: string): string {
  const params = new URLSearchParams(search);
  params.delete("token");
  return params.toString();
}
