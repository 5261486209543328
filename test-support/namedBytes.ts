import type { NamedFile } from "../src/core/files/torchRecords";

/** `bytes` as a named file of a dump listing (rolloutDumpSource), sliced as a browser File is. */
export function namedBytes(name: string, bytes: Uint8Array): NamedFile {
  return {
    name,
    file: {
      byteLength: bytes.length,
      slice: async (a: number, b?: number) =>
        bytes.buffer.slice(
          bytes.byteOffset + a,
          bytes.byteOffset + (b ?? bytes.length),
        ) as ArrayBuffer,
    },
  };
}
