import { useSearchParams } from "react-router";
import { parseDriftMode } from "../../core/drift/rowDrift";
import type { DriftMode } from "../../core/drift/types";
import { driftPrefsActions, useDriftMode } from "./driftPrefsStore";

/** The drift check shown: `?mode=` when the link carries one, else the last one picked. */
export function useDriftModeParam(): [DriftMode, (mode: DriftMode) => void] {
  const [params, setParams] = useSearchParams();
  const picked = useDriftMode();
  const mode = parseDriftMode(params.get("mode")) ?? picked;
  const setMode = (next: DriftMode) => {
    driftPrefsActions.modePicked(next);
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        out.set("mode", next);
        return out;
      },
      { replace: true },
    );
  };
  return [mode, setMode];
}

/** `search` with `token` set and the drift-only params dropped: a link into the token view. */
export function withToken(search: string, token: number): string {
  const params = new URLSearchParams(search);
  params.delete("mode");
  params.set("token", String(token));
  return params.toString();
}
