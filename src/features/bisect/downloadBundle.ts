import type { BisectBundle } from "../../core/bisect/bundle";

/** The file name of a bundle: its trajectory id, made safe, `.bisect.json`. */
export function bundleFileName(bundle: BisectBundle): string {
  const id = bundle.source.trajectory_id ?? bundle.source.episode ?? "row";
  return `${id.replace(/[^A-Za-z0-9._-]+/g, "_")}.bisect.json`;
}

/** Downloads the repro bundle as one JSON file (`rollout-lens bisect --bundle FILE` reruns it). */
export function downloadBundle(bundle: BisectBundle): void {
  const url = URL.createObjectURL(
    new Blob([`${JSON.stringify(bundle)}\n`], { type: "application/json" }),
  );
  const link = document.createElement("a");
  link.href = url;
  link.download = bundleFileName(bundle);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
