import type { ScanFile } from "../workers/scanClients";

/* Query plumbing the file scans share (drift, mismatch): what a scan is keyed by, its progress. */

/**
 * Scan progress is not query data (the query resolves once, at the end): the query function
 * reports it to one of these, with the rows checked so far, and the view subscribes by key.
 */
export function progressStores<P>() {
  const progress = new Map<string, P>();
  const listeners = new Set<() => void>();
  return {
    report(key: string, p: P) {
      progress.set(key, p);
      for (const listener of listeners) listener();
    },
    clear: (key: string) => progress.delete(key),
    /** Subscribe/get pair (for useSyncExternalStore) of one scan's progress. */
    store: (key: string) => ({
      subscribe: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      getSnapshot: () => progress.get(key),
    }),
  };
}

/**
 * What a file scan is of: the open file, and the column mapping its records are read through (a
 * table re-read through another mapping is another scan, never the old one's results).
 */
export function scanSubject(fileId: string, file: ScanFile | undefined): string {
  const mapping = file?.source.mapping;
  return mapping ? JSON.stringify([fileId, mapping]) : fileId;
}
