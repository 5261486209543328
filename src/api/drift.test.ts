import { describe, expect, it } from "vitest";
import type { ColumnMapping } from "../core/formats/columnMapping";
import { correction } from "../core/mismatch/mismatch";
import type { ScanFile } from "../workers/scanClients";
import { driftQueries } from "./drift";
import { mismatchQueries } from "./mismatch";
import { scanSubject } from "./scans";

function fileWith(mapping?: ColumnMapping): ScanFile {
  const blob = new Blob(["x"]);
  return {
    source: { kind: "blob", name: "t.parquet", blob, ...(mapping ? { mapping } : {}) },
    caughtUp: async () => {},
    getState: () => ({ bytes: 1 }),
    ranges: async () => {
      throw new Error("not scanned here");
    },
  };
}

const A: ColumnMapping = { layout: "split", promptTokenIds: "p", responseTokenIds: "r" };
const B: ColumnMapping = { ...A, reward: "score" };

describe("file scans are keyed by what they read", () => {
  it("a table read through another column mapping is another scan", () => {
    expect(scanSubject("f1", fileWith())).toBe("f1");
    expect(scanSubject("f1", fileWith(A))).toBe(scanSubject("f1", fileWith({ ...A })));
    expect(scanSubject("f1", fileWith(A))).not.toBe(scanSubject("f1", fileWith(B)));
    const drift = (m?: ColumnMapping) =>
      JSON.stringify(driftQueries.file("f1", "qwen3", "roundtrip", fileWith(m)).queryKey);
    expect(drift(A)).not.toBe(drift(B));
    expect(drift(A)).not.toBe(drift());
    const options = { correction: correction("token-trunc") };
    const mismatch = (m?: ColumnMapping) =>
      JSON.stringify(mismatchQueries.file("f1", options, fileWith(m)).queryKey);
    expect(mismatch(A)).not.toBe(mismatch(B));
  });
});
