import { describe, expect, it } from "vitest";
import { isLocalFileId, listSearch, localFileId, movedFilePath } from "./fileRoutes";

describe("file route ids", () => {
  it("tells local files from server files", () => {
    expect(isLocalFileId(localFileId(3))).toBe(true);
    expect(isLocalFileId("f1")).toBe(false);
    expect(isLocalFileId("episodes")).toBe(false);
    expect(isLocalFileId("local-")).toBe(false);
  });

  it("moves every old `srv-<id>` link to the server id, keeping the rest of the path", () => {
    expect(movedFilePath("/files/srv-f1")).toBe("/files/f1");
    expect(movedFilePath("/files/srv-f2/3/drift")).toBe("/files/f2/3/drift");
    expect(movedFilePath("/files/srv-episodes/compare/1/0")).toBe("/files/episodes/compare/1/0");
  });

  it("leaves current links alone", () => {
    expect(movedFilePath("/files/f1")).toBeUndefined();
    expect(movedFilePath("/files/local-1/2")).toBeUndefined();
    expect(movedFilePath("/files")).toBeUndefined();
  });
});

describe("a row page's query", () => {
  it("keeps the list's filters and sort for links to the list and other rows, not the token", () => {
    expect(listSearch("status=completed&token=12&sort=reward&desc=1")).toBe(
      "status=completed&sort=reward&desc=1",
    );
    expect(listSearch("token=3")).toBe("");
    expect(listSearch("mode=template&q=cube")).toBe("mode=template&q=cube");
  });
});
