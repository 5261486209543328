import { describe, expect, it } from "vitest";
import { fileRowOfPath } from "./startRoute";

describe("fileRowOfPath", () => {
  it("names the file and row of a row's token view", () => {
    expect(fileRowOfPath("/files/f1/0")).toEqual({ fileId: "f1", row: 0 });
    expect(fileRowOfPath("/files/episodes/12/")).toEqual({ fileId: "episodes", row: 12 });
    expect(fileRowOfPath("/files/a%20b/3")).toEqual({ fileId: "a b", row: 3 });
  });

  it("names nothing for other pages, other tabs and malformed ids", () => {
    for (const path of [
      "/",
      "/files",
      "/files/f1",
      "/files/f1/0/drift",
      "/files/f1/0/bisect",
      "/files/f1/compare/1/2",
      "/files/f1/x",
      "/files/%E0%A4%A/1",
      "/episodes/e1",
    ]) {
      expect(fileRowOfPath(path), path).toBeUndefined();
    }
  });
});
