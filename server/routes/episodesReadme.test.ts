import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

describe("the README's episode API", () => {
  it("shows every action route of /api/episodes/:id with a curl line", () => {
    const routes = [...read("./episodes.ts").matchAll(/app\.post\("\/:id\/([a-z-]+)"/g)].map(
      (m) => m[1],
    );
    expect(routes).toEqual(expect.arrayContaining(["abort", "human-reply"]));
    const readme = read("../../README.md");
    const missing = routes.filter(
      (route) =>
        !new RegExp(`curl [^\\n]*-XPOST [^\\n]*/api/episodes/ep_\\.\\.\\./${route}\\b`).test(
          readme,
        ),
    );
    expect(missing).toEqual([]);
  });
});
