/** `id` made safe as a file name: every run of characters other than [A-Za-z0-9._-] becomes `_`. */
export function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/** Downloads `blob` as a file named `name` (the browser's save, nothing written on the server). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click's task: the download has taken the URL by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
