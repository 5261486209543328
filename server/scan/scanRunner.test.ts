import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { readRolloutLine } from "../../src/core/formats/readRolloutLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import { sampledLane, withLane } from "../../src/core/trajectory/lanes";
import type { Trajectory } from "../../src/core/trajectory/types";
import { fixtureLines, fixturePath } from "../../src/test/fixtureFiles";
import { main } from "../cli";
import type { CommandIo } from "../commands/commandIo";
import { killBusyWorker } from "../workers/workerPool";
import { runInOrder } from "./scanRunner";

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-scan-runner-"));

async function run(args: string[], write?: (text: string) => void) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    ...(write ? { write } : {}),
  };
  const code = await main(args, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const base = (() => {
  const result = readRolloutLine(fixtureLines("reference-rollout-lens.jsonl")[0] ?? "", 1);
  if (result.kind !== "trajectories") throw new Error("the reference episode does not read");
  return result.trajectories[0] as Trajectory;
})();

/** `n` episodes with a `trainer` lane each (some without one: skipped), as JSON lines. */
function laneLines(n: number, tag: string): string[] {
  const sampled = sampledLane(base);
  return Array.from({ length: n }, (_, j) => {
    const t = { ...base, id: `${tag}${j}` };
    if (j % 37 === 5) return stringifyJsonLine(writeRolloutLens(t));
    const lane = sampled.map((v, k) => (v === null ? null : v + 0.8 * Math.sin(3 * j + k)));
    return stringifyJsonLine(writeRolloutLens(withLane(t, "trainer", lane)));
  });
}

function write(path: string, lines: readonly string[]): string {
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const lanesDir = join(dir, "lanes");
mkdirSync(join(lanesDir, "b"), { recursive: true });
const laneA = write(join(lanesDir, "a.jsonl"), laneLines(300, "a"));
const laneB = write(join(lanesDir, "b", "b.jsonl"), laneLines(200, "b"));
const laneC = write(join(lanesDir, "c.jsonl"), ["{ not json", ...laneLines(50, "c")]);

const json = async (args: string[]) => {
  const r = await run(args);
  return { ...r, report: JSON.parse(r.out) };
};

/** Writes the `--json` output of `args` to a report file and names it. */
async function reportOf(name: string, args: string[]): Promise<string> {
  const { out } = await run(args);
  return write(join(dir, name), [out]);
}

describe("the scanning commands' runner", () => {
  it("hands units' pieces on in input order, the first unit's as they come", async () => {
    const units = ["a", "b", "c"].map((path) => ({ path }));
    const seen: string[] = [];
    const gate: { open?: () => void } = {};
    const opened = new Promise<void>((resolve) => {
      gate.open = resolve;
    });
    await runInOrder<string, string>(
      units,
      3,
      async (unit, onPart) => {
        if (unit.path === "a") {
          onPart("a1");
          // "a" is still running when its first piece is handed on: the others wait behind it.
          expect(seen).toEqual(["a:a1"]);
          await opened;
          onPart("a2");
        } else {
          onPart(`${unit.path}1`);
          if (unit.path === "c") gate.open?.();
        }
        return `${unit.path} done`;
      },
      {
        part: (unit, part) => seen.push(`${unit.path}:${part}`),
        done: (unit, done) => seen.push(`${unit.path}:${done}`),
      },
    );
    expect(seen).toEqual(["a:a1", "a:a2", "a:a done", "b:b1", "b:b done", "c:c1", "c:c done"]);
  });

  it("runs each lane's units one at a time, every lane busy, the first units on the first lanes", async () => {
    const units = ["a", "b", "c", "d", "e"].map((path) => ({ path }));
    const running = new Map<number, string>();
    const lanesOf = new Map<string, number>();
    await runInOrder<never, string>(
      units,
      2,
      async (unit, _onPart, lane) => {
        expect(running.has(lane)).toBe(false);
        running.set(lane, unit.path);
        lanesOf.set(unit.path, lane);
        await new Promise((resolve) => setTimeout(resolve, unit.path === "a" ? 30 : 1));
        running.delete(lane);
        return unit.path;
      },
      { part: () => {}, done: () => {} },
    );
    expect(lanesOf.get("a")).toBe(0);
    expect(lanesOf.get("b")).toBe(1);
    // "a" holds lane 0 while lane 1 takes the next units.
    expect(lanesOf.get("c")).toBe(1);
    expect(new Set(lanesOf.values())).toEqual(new Set([0, 1]));
  });
});

describe("lanes that start late (a worker loading)", () => {
  const units = ["a", "b", "c", "d"].map((path) => ({ path }));
  const sink = { part: () => {}, done: () => {} };

  it("take units only once ready: the lanes already running take the rest", async () => {
    const lanesOf = new Map<string, number>();
    let ready = () => {};
    const lane1Ready = new Promise<void>((resolve) => {
      ready = resolve;
    });
    await runInOrder<never, string>(
      units,
      2,
      async (unit, _onPart, lane) => {
        lanesOf.set(unit.path, lane);
        // Lane 1 starts while lane 0 runs its second unit.
        if (unit.path === "b") ready();
        await new Promise((resolve) => setTimeout(resolve, 5));
        return unit.path;
      },
      sink,
      (lane) => (lane === 1 ? lane1Ready : Promise.resolve()),
    );
    expect(lanesOf.get("a")).toBe(0);
    expect(lanesOf.get("b")).toBe(0);
    expect([lanesOf.get("c"), lanesOf.get("d")].sort()).toEqual([0, 1]);
  });

  it("are not waited for once every unit has ended", async () => {
    const ran: number[] = [];
    const started = Date.now();
    await runInOrder<never, string>(
      units,
      2,
      async (unit, _onPart, lane) => {
        ran.push(lane);
        return unit.path;
      },
      sink,
      (lane) => (lane === 1 ? new Promise(() => {}) : Promise.resolve()),
    );
    expect(ran).toEqual([0, 0, 0, 0]);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("mismatch on the runner: globs, directories, --jobs, --shard, merge-reports, streamed --json", () => {
  it("takes a directory and a glob, files in path order", async () => {
    const byDir = await json(["mismatch", lanesDir, "--json"]);
    expect(byDir.report.files.map((f: { path: string }) => f.path)).toEqual([laneA, laneB, laneC]);
    const byGlob = await json(["mismatch", join(lanesDir, "**", "*.jsonl"), "--json"]);
    expect(byGlob.report).toEqual(byDir.report);
    expect(byDir.code).toBe(2); // skipped trajectories and a bad line
    const none = await run(["mismatch", join(lanesDir, "*.parquet")]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("mismatch: ");
  });

  it("--jobs 2 prints what --jobs 1 prints, per file and in order", async () => {
    const one = await json(["mismatch", lanesDir, "--json"]);
    const two = await json(["mismatch", lanesDir, "--json", "--jobs", "2"]);
    expect(two.report).toEqual(one.report);
    expect(two.code).toBe(one.code);
    const text = await run(["mismatch", laneA, laneB, "--jobs", "2"]);
    expect(text.out).toBe((await run(["mismatch", laneA, laneB])).out);
    expect((await run(["mismatch", laneA, "--jobs", "0"])).code).toBe(2);
  }, 60_000);

  it("--shard I/N of one file, merged, is the unsharded report (the scatter: another sample)", async () => {
    const whole = (await json(["mismatch", laneA, "--json"])).report;
    const shards = [];
    for (const shard of ["0/3", "1/3", "2/3"]) {
      shards.push(
        await reportOf(`mm-${shard[0]}.json`, ["mismatch", laneA, "--json", "--shard", shard]),
      );
    }
    const merged = await json(["merge-reports", ...shards, "--json"]);
    expect(merged.code).toBe(2); // trajectories without a trainer lane: not compared
    const [file] = merged.report.files;
    const [one] = whole.files;
    expect(merged.report.correction).toEqual(whole.correction);
    for (const key of ["trajectories", "skipped", "errors", "summary", "rows", "unchecked"]) {
      expect(file[key], key).toEqual(one[key]);
    }
    expect(file.charts.worst).toEqual(one.charts.worst);
    expect(file.charts.histogram).toEqual(one.charts.histogram);
    expect(file.charts.compared).toBe(one.charts.compared);
    expect(file.charts.scatter.length).toBe(one.charts.scatter.length);
    const missing = await run(["merge-reports", shards[0] as string, shards[1] as string]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("shard 2/3 is missing");
  }, 60_000);

  it("--shard I/N of several files, merged, is exactly the unsharded report", async () => {
    const whole = (await json(["mismatch", lanesDir, "--json"])).report;
    const shards = [
      await reportOf("mmf-0.json", ["mismatch", lanesDir, "--json", "--shard", "0/2"]),
      await reportOf("mmf-1.json", ["mismatch", lanesDir, "--json", "--shard", "1/2"]),
    ];
    const merged = await json(["merge-reports", ...shards, "--json"]);
    expect(merged.report).toEqual(whole);
    const human = await run(["merge-reports", ...shards]);
    expect(human.out).toContain(`${laneA}: rollout-lens/v1, 292 trajectories (8 not compared)`);
  }, 60_000);

  it("merge-reports judges merged mismatch reports by mismatch's rules, --fail-above included", async () => {
    const clean = write(join(dir, "clean-lanes.jsonl"), laneLines(5, "d"));
    const shards = [
      await reportOf("mmc-0.json", ["mismatch", clean, "--json", "--shard", "0/2"]),
      await reportOf("mmc-1.json", ["mismatch", clean, "--json", "--shard", "1/2"]),
    ];
    expect((await run(["merge-reports", ...shards])).code).toBe(0);
    expect((await run(["merge-reports", ...shards, "--fail-above", "0"])).code).toBe(1);
    expect((await run(["mismatch", clean, "--fail-above", "0"])).code).toBe(1);
    const groups = await reportOf("gx.json", [
      "groups",
      fixturePath("atropos-rubiks-groups.jsonl"),
      "--json",
    ]);
    const mixed = await run(["merge-reports", shards[0] as string, groups]);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toContain("the reports come from different scans: mismatch, groups");
  }, 60_000);

  it("streams --json: the same report, written in pieces as the trajectories come", async () => {
    const buffered = await run(["mismatch", lanesDir, "--json"]);
    const pieces: string[] = [];
    const streamed = await run(["mismatch", lanesDir, "--json", "--jobs", "2"], (t) =>
      pieces.push(t),
    );
    expect(streamed.out).toBe("");
    expect(pieces.length).toBeGreaterThan(2);
    // The first piece carries trajectories of the first file before anything of its end.
    expect(pieces[0]).toContain('"trajectories":[{"id":"a0"');
    expect(pieces[0]).not.toContain('"summary"');
    expect(JSON.parse(pieces.join(""))).toEqual(JSON.parse(buffered.out));
  }, 60_000);
});

describe("groups on the runner: --jobs, merge-reports, streamed --json", () => {
  const groupsDir = join(dir, "groups");
  mkdirSync(groupsDir, { recursive: true });
  write(join(groupsDir, "atropos.jsonl"), fixtureLines("atropos-rubiks-groups.jsonl"));
  write(join(groupsDir, "trimmed.jsonl"), fixtureLines("atropos-rubiks-trimmed.jsonl"));

  it("--jobs 2 prints what --jobs 1 prints", async () => {
    const one = await json(["groups", groupsDir, "--json"]);
    expect(one.report.files).toHaveLength(2);
    expect(await json(["groups", groupsDir, "--json", "--jobs", "2"])).toEqual(one);
    expect((await run(["groups", groupsDir, "--jobs", "2"])).out).toBe(
      (await run(["groups", groupsDir])).out,
    );
  }, 60_000);

  it("--shard I/N of one file (by group key), merged, is the unsharded report", async () => {
    const atropos = fixturePath("atropos-rubiks-groups.jsonl");
    const whole = await json(["groups", atropos, "--json"]);
    const shards = [
      await reportOf("g-0.json", ["groups", atropos, "--json", "--shard", "0/2"]),
      await reportOf("g-1.json", ["groups", atropos, "--json", "--shard", "1/2"]),
    ];
    const merged = await json(["merge-reports", ...shards, "--json"]);
    expect(merged.report).toEqual(whole.report);
    expect(merged.code).toBe(0);
    const twice = await run(["merge-reports", shards[0] as string, shards[0] as string]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain("is given twice");
  }, 60_000);

  it("streams --json file by file: the same report", async () => {
    const buffered = await run(["groups", groupsDir, "--json"]);
    const pieces: string[] = [];
    await run(["groups", groupsDir, "--json"], (t) => pieces.push(t));
    expect(JSON.parse(pieces.join(""))).toEqual(JSON.parse(buffered.out));
  }, 60_000);
});

/** Runs `args` and kills a busy worker of pool `name` as soon as one is busy. */
async function runAndKill(args: string[], name: string) {
  let killedAt: number | undefined;
  const killer = setInterval(() => {
    void killBusyWorker(name).then((killed) => {
      if (killed && killedAt === undefined) {
        killedAt = Date.now();
        clearInterval(killer);
      }
    });
  }, 10);
  try {
    const result = await run(args);
    return { ...result, afterKill: Date.now() - (killedAt ?? Number.NaN) };
  } finally {
    clearInterval(killer);
  }
}

describe("a worker killed mid-scan ends the run with exit 2 and the file named, within seconds", () => {
  it("mismatch --jobs 2", async () => {
    // The main thread scans from the start and the worker takes files once it has loaded (from
    // source, through tsx: seconds on a loaded machine). The first file, the main thread's, is
    // ten times the others, so the worker has loaded and holds one of them when it is killed.
    const lines = laneLines(3000, "k");
    const first = write(
      join(dir, "big-lanes-1.jsonl"),
      Array.from({ length: 10 }, () => lines).flat(),
    );
    const rest = [2, 3, 4].map((k) => write(join(dir, `big-lanes-${k}.jsonl`), lines));
    const bigs = [first, ...rest];
    const { code, out, afterKill } = await runAndKill(["mismatch", ...bigs, "--jobs", "2"], "scan");
    expect(code).toBe(2);
    expect(out).toMatch(
      new RegExp(
        `: cannot read: scan worker exited \\(code \\d+\\) while reading (${bigs.join("|")})`,
      ),
    );
    expect(afterKill).toBeLessThan(10_000);
  }, 60_000);

  it("drift --jobs 2", async () => {
    const slime = fixtureLines("reference-slime.jsonl").filter((l) => l.trim() !== "");
    const big = write(
      join(dir, "big-drift.jsonl"),
      Array.from({ length: 3000 }, (_, k) => slime[k % slime.length] as string),
    );
    const { code, out, afterKill } = await runAndKill(["drift", big, "--jobs", "2"], "drift");
    expect(code).toBe(2);
    expect(out).toMatch(
      new RegExp(
        `^${big}: cannot read: drift worker exited \\(code \\d+\\) while reading ${big} lines \\d+–\\d+$`,
        "m",
      ),
    );
    expect(afterKill).toBeLessThan(10_000);
  }, 60_000);
});
