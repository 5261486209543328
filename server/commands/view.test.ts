import type { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { ServerConfig } from "../config";
import { openBrowser, openerFor, viewCommand, viewUrl } from "./view";

describe("viewUrl", () => {
  it.each([
    { host: "127.0.0.1", port: 5173, files: 1, url: "http://127.0.0.1:5173/files/srv-f1" },
    { host: "127.0.0.1", port: 4000, files: 2, url: "http://127.0.0.1:4000/files" },
    { host: "0.0.0.0", port: 80, files: 1, url: "http://127.0.0.1:80/files/srv-f1" },
    { host: "::1", port: 9, files: 3, url: "http://[::1]:9/files" },
  ])("$host:$port with $files files -> $url", ({ host, port, files, url }) => {
    expect(viewUrl(host, port, files)).toBe(url);
  });
});

describe("openBrowser", () => {
  it.each([
    ["linux", "xdg-open"],
    ["darwin", "open"],
    ["win32", "cmd"],
  ] as const)("uses the %s opener %s", (platform, command) => {
    expect(openerFor(platform).command).toBe(command);
  });

  // A fake child process: emits `spawn` or `error` on the next tick, as node's does.
  function fakeSpawn(outcome: "spawn" | "error" | "throw", calls: string[][]): typeof spawn {
    const fake = (command: string, args: readonly string[]) => {
      calls.push([command, ...args]);
      if (outcome === "throw") throw new Error("EACCES");
      const child = Object.assign(new EventEmitter(), { unref: () => {} });
      setImmediate(() =>
        outcome === "spawn" ? child.emit("spawn") : child.emit("error", new Error("ENOENT")),
      );
      return child;
    };
    // The fake covers the members openBrowser uses (once, unref); the full ChildProcess is not needed.
    return fake as unknown as typeof spawn;
  }

  it.each([
    { outcome: "spawn", opened: true },
    { outcome: "error", opened: false },
    { outcome: "throw", opened: false },
  ] as const)("resolves $opened when the opener does $outcome, never throwing", async (c) => {
    const calls: string[][] = [];
    const opened = await openBrowser("http://x/files", "linux", fakeSpawn(c.outcome, calls));
    expect(opened).toBe(c.opened);
    expect(calls).toEqual([["xdg-open", "http://x/files"]]);
  });
});

describe("viewCommand", () => {
  function run(args: string[], canOpen: boolean) {
    const out: string[] = [];
    const started: ServerConfig[] = [];
    const opened: string[] = [];
    const done = viewCommand(args, {
      out: (t) => out.push(t),
      start: async (config) => {
        started.push(config);
      },
      open: async (url) => {
        opened.push(url);
        return canOpen;
      },
    });
    return { done, out, started, opened };
  }

  it("serves the files, prints the URL and opens it", async () => {
    const r = run(["package.json", "--port", "4555"], true);
    expect(await r.done).toBe(0);
    expect(r.started.map((c) => [c.files, c.port])).toEqual([[["package.json"], 4555]]);
    expect(r.out).toEqual(["Open http://127.0.0.1:4555/files/srv-f1"]);
    expect(r.opened).toEqual(["http://127.0.0.1:4555/files/srv-f1"]);
  });

  it("still succeeds with no opener, and says so", async () => {
    const r = run(["package.json", "tsconfig.json"], false);
    expect(await r.done).toBe(0);
    expect(r.out).toEqual([
      "Open http://127.0.0.1:5173/files",
      "(no browser opener found: open the URL above yourself)",
    ]);
  });

  it("skips the browser with --no-open and notes files not written yet", async () => {
    const r = run(["missing-run.jsonl", "--no-open"], true);
    expect(await r.done).toBe(0);
    expect(r.opened).toEqual([]);
    expect(r.out[0]).toMatch(/missing-run\.jsonl does not exist yet/);
  });

  it("needs a file", async () => {
    await expect(run([], true).done).rejects.toThrow(/at least one FILE/);
  });
});
