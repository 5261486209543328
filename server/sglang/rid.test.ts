import { describe, expect, it } from "vitest";
import { newRid, RID_LENGTH } from "./rid";

describe("newRid", () => {
  it("is fixed-width base32 with no underscore, so no rid is a prefix of another", () => {
    const rids = Array.from({ length: 2000 }, newRid);
    for (const rid of rids) expect(rid).toMatch(/^rl[a-z2-7]{30}$/);
    expect(new Set(rids.map((r) => r.length))).toEqual(new Set([RID_LENGTH]));
    expect(new Set(rids).size).toBe(rids.length);
    const prefixHits = rids.filter((a) => rids.some((b) => a !== b && b.startsWith(a)));
    expect(prefixHits).toEqual([]);
  });
});
