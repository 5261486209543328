import type { QueryClient } from "@tanstack/react-query";
import { prefetchFileRow } from "../features/rollouts/prefetchFileRow";

/** The file and row a row's token-view URL (`/files/:fileId/:row`, no tab) names; else undefined. */
export function fileRowOfPath(pathname: string): { fileId: string; row: number } | undefined {
  const match = /^\/files\/([^/]+)\/(\d+)\/?$/.exec(pathname);
  if (!match?.[1] || !match[2]) return undefined;
  try {
    return { fileId: decodeURIComponent(match[1]), row: Number(match[2]) };
  } catch {
    return undefined; // a malformed escape: the router's page says what is wrong
  }
}

/**
 * The data the page the tab opened on needs, started before React first renders it (a route
 * loader for the first URL): today a row's token view, whose text is the page's point.
 */
export function startRoute(queryClient: QueryClient, pathname: string): void {
  const fileRow = fileRowOfPath(pathname);
  if (fileRow) void prefetchFileRow(queryClient, fileRow.fileId, fileRow.row);
}
