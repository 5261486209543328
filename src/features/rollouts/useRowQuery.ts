import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { queryFromParams, queryToParams, type RowQuery } from "../../core/files/rowQuery";

/** The table's filter and sort, read from and written to the URL search params. */
export function useRowQuery(): [RowQuery, (patch: Partial<RowQuery>) => void, string] {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const query = useMemo(() => queryFromParams((n) => new URLSearchParams(search).get(n)), [search]);
  const update = useCallback(
    (patch: Partial<RowQuery>) =>
      setParams(new URLSearchParams(queryToParams({ ...query, ...patch })), { replace: true }),
    [query, setParams],
  );
  return [query, update, search];
}
