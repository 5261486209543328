import { downloadBlob, safeFileName } from "../../app/downloadFile";
import type { BisectBundle } from "../../core/bisect/bundle";

/** The file name of a bundle: its trajectory id, made safe, `.bisect.json`. */
export function bundleFileName(bundle: BisectBundle): string {
  const id = bundle.source.trajectory_id ?? bundle.source.episode ?? "row";
  return `${safeFileName(id)}.bisect.json`;
}

/** Downloads the repro bundle as one JSON file (`rollout-lens bisect --bundle FILE` reruns it). */
export function downloadBundle(bundle: BisectBundle): void {
  const blob = new Blob([`${JSON.stringify(bundle)}\n`], { type: "application/json" });
  downloadBlob(blob, bundleFileName(bundle));
}
