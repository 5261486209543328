import type { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ServerConfig } from "../config";
import { openBrowser, openerFor, viewCommand, viewUrl } from "./view";

describe("viewUrl", () => {
  it.each([
    { host: "127.0.0.1", port: 5173, files: 1, url: "http://127.0.0.1:5173/files/f1" },
    { host: "127.0.0.1", port: 4000, files: 2, url: "http://127.0.0.1:4000/files" },
    { host: "0.0.0.0", port: 80, files: 1, url: "http://127.0.0.1:80/files/f1" },
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
    expect(openerFor(platform, undefined).command).toBe(command);
  });

  it.each([
    { browser: "firefox", opener: { command: "firefox", args: [] } },
    {
      browser: "  chromium --new-window\t--incognito ",
      opener: { command: "chromium", args: ["--new-window", "--incognito"] },
    },
    { browser: "/opt/bin/lens-open.mjs", opener: { command: "/opt/bin/lens-open.mjs", args: [] } },
    // Set but empty (or blank) means unset, as for git and Python's webbrowser.
    { browser: "", opener: { command: "xdg-open", args: [] } },
    { browser: "   ", opener: { command: "xdg-open", args: [] } },
  ])("BROWSER=$browser opens with $opener.command", ({ browser, opener }) => {
    expect(openerFor("linux", browser)).toEqual(opener);
    // BROWSER wins on every platform, not only where xdg-open would run.
    if (browser.trim() !== "") expect(openerFor("darwin", browser)).toEqual(opener);
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
    const opened = await openBrowser(
      "http://x/files",
      "linux",
      fakeSpawn(c.outcome, calls),
      undefined,
    );
    expect(opened).toBe(c.opened);
    expect(calls).toEqual([["xdg-open", "http://x/files"]]);
  });

  it.each([
    { browser: "my-browser", call: ["my-browser", "http://x/files?token=a%2Bb"] },
    {
      browser: "firefox --new-window",
      call: ["firefox", "--new-window", "http://x/files?token=a%2Bb"],
    },
    { browser: "", call: ["cmd", "/c", "start", '""', "http://x/files?token=a%2Bb"] },
  ])("runs BROWSER=$browser with the URL as its last argument", async ({ browser, call }) => {
    const calls: string[][] = [];
    const url = "http://x/files?token=a%2Bb";
    expect(await openBrowser(url, "win32", fakeSpawn("spawn", calls), browser)).toBe(true);
    expect(calls).toEqual([call]);
  });

  it("reports a BROWSER command that does not exist as not opened", async () => {
    const calls: string[][] = [];
    expect(await openBrowser("http://x/", "linux", fakeSpawn("error", calls), "nope")).toBe(false);
    expect(calls).toEqual([["nope", "http://x/"]]);
  });
});

describe("viewCommand", () => {
  function run(args: string[], canOpen: boolean, token?: string) {
    const out: string[] = [];
    const started: ServerConfig[] = [];
    const opened: string[] = [];
    const done = viewCommand(args, {
      out: (t) => out.push(t),
      start: async (config) => {
        started.push(config);
        return token === undefined ? {} : { token };
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
    expect(r.out).toEqual(["Open http://127.0.0.1:4555/files/f1"]);
    expect(r.opened).toEqual(["http://127.0.0.1:4555/files/f1"]);
  });

  it("still succeeds with no opener, and says so", async () => {
    const r = run(["package.json", "tsconfig.json"], false);
    expect(await r.done).toBe(0);
    expect(r.out).toEqual([
      "Open http://127.0.0.1:5173/files",
      "(no browser opener found: open the URL above yourself)",
    ]);
  });

  it("a directory is a run: its step files are counted, and the browser lands on the list", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rl-view-run-"));
    for (const step of [3, 1, 2]) writeFileSync(join(dir, `${step}.jsonl`), "{}\n");
    writeFileSync(join(dir, "metrics.json"), "{}");
    const r = run([dir, "--port", "4557"], true);
    expect(await r.done).toBe(0);
    expect(r.started.map((c) => c.files)).toEqual([[dir]]);
    expect(r.out[0]).toBe(`run ${dir}: 3 step files, steps 1–3 (n / p step through)`);
    expect(r.out[1]).toMatch(/1 file\(s\) name no step and are left out: .*metrics\.json/);
    expect(r.opened).toEqual(["http://127.0.0.1:4557/files"]);
  });

  it("refuses a directory with no rollout file, naming the patterns", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rl-view-empty-"));
    writeFileSync(join(dir, "notes.txt"), "x");
    writeFileSync(join(dir, "config.json"), "{}");
    await expect(run([dir], true).done).rejects.toThrow(/no rollout files .*train_data_step\{N\}/);
  });

  it("lists the rollout files of a directory naming no step one by one (no run)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rl-view-flat-"));
    for (const name of ["b.jsonl", "a.parquet", "config.json", "metrics.jsonl"]) {
      writeFileSync(join(dir, name), "{}\n");
    }
    const r = run([dir, "--port", "4558"], true);
    expect(await r.done).toBe(0);
    expect(r.out[0]).toBe(
      `${dir}: no file names a step, so it is no training run: its 2 rollout file(s) are listed one by one`,
    );
    expect(r.out[1]).toMatch(
      /^note: 2 file\(s\) are side files or configs and are left out: .*config\.json.*metrics\.jsonl/,
    );
    expect(r.opened).toEqual(["http://127.0.0.1:4558/files"]);
  });

  it("skips the browser with --no-open and notes files not written yet", async () => {
    const r = run(["missing-run.jsonl", "--no-open"], true);
    expect(await r.done).toBe(0);
    expect(r.opened).toEqual([]);
    expect(r.out[0]).toMatch(/missing-run\.jsonl does not exist yet/);
  });

  it("opens the file signed in when the server needs a token, without printing the token", async () => {
    const token = "s3cret+token/with=signs";
    const r = run(["package.json", "--require-token", "--port", "4556"], true, token);
    expect(await r.done).toBe(0);
    expect(r.started.map((c) => c.requireToken)).toEqual([true]);
    expect(r.opened).toEqual([`http://127.0.0.1:4556/files/f1?token=${encodeURIComponent(token)}`]);
    expect(r.out).toEqual([
      "Open http://127.0.0.1:4556/files/f1 (sign in once with the URL above)",
    ]);
    expect(r.out.join("\n")).not.toContain("s3cret");
  });

  it("needs a file", async () => {
    await expect(run([], true).done).rejects.toThrow(/at least one FILE/);
  });
});
