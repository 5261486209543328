import type { QueryClient } from "@tanstack/react-query";
import { filesQueries } from "../../api/files";
import { tokenizerQueries, warmTokenizerWorker } from "../../api/tokenizers";
import type { Trajectory } from "../../core/trajectory/types";
import { warmRolloutFileWorker } from "../../workers/rolloutFileClient";
import { prefetchRecordedPieces } from "../drift/useRecordedPieces";
import { isLocalFileId } from "./fileRoutes";
import { openServerFile } from "./openFiles";
import { fileRowQuery } from "./useFileTrajectory";

/**
 * What the token view does with a row the moment it is read: ask for its tokenizer and its text
 * (under the keys the view reads), so the tokenizer's download overlaps React's render of the row.
 */
export function decodeOnRead(queryClient: QueryClient): (trajectory: Trajectory) => void {
  return (trajectory) => void prefetchRecordedPieces(queryClient, trajectory);
}

/**
 * Starts a row's token view (`/files/:fileId/:row`) before React first renders it: the tokenizer
 * worker and catalog, a file worker and the server's file list at once, then the row's read and,
 * once read, its text. A row opened by its URL in a cold browser then starts at page load, not
 * after the page's first render. Failures are left to the page, which asks again and says why.
 */
export async function prefetchFileRow(
  queryClient: QueryClient,
  fileId: string,
  rowIndex: number,
): Promise<void> {
  warmTokenizerWorker();
  void queryClient.prefetchQuery(tokenizerQueries.catalog());
  // A local file's id only lives in the tab that opened it: the page says so.
  if (isLocalFileId(fileId)) return;
  warmRolloutFileWorker();
  const list = await queryClient.fetchQuery(filesQueries.list()).catch(() => undefined);
  const client = list && openServerFile(fileId, list);
  if (!client) return;
  await queryClient.prefetchQuery(
    fileRowQuery(fileId, client, rowIndex, decodeOnRead(queryClient)),
  );
}
