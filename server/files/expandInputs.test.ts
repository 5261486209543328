import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandInputs } from "./expandInputs";

const root = mkdtempSync(join(tmpdir(), "expand-"));
const cwd = process.cwd();

beforeAll(() => {
  for (const path of [
    "runs/b.jsonl",
    "runs/a.jsonl",
    "runs/notes.txt",
    "runs/step_10/z.jsonl",
    "runs/step_2/y.ndjson",
    "runs/step_2/deep/x.jsonl",
    "runs/.hidden/h.jsonl",
    "runs/.tmp.jsonl",
    "empty/readme.md",
  ]) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), "{}\n");
  }
  symlinkSync(join(root, "runs"), join(root, "runs/step_2/loop"));
  process.chdir(root);
});

afterAll(() => process.chdir(cwd));

describe("expandInputs", () => {
  it("a directory's Parquet tables and JSON step documents are read, as `view DIR` lists them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "expand-tables-"));
    for (const name of ["step_1.parquet", "step_2.json", "config.json", "notes.txt"]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), "{}\n");
    }
    expect((await expandInputs([dir])).files).toEqual([
      join(dir, "step_1.parquet"),
      join(dir, "step_2.json"),
    ]);
  });

  it("a W&B run's tables (media/table/*.table.json) are read; its config and summary are noted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "expand-wandb-"));
    const table = "files/media/table/completions_47_0123456789abcdef0123.table.json";
    for (const name of [table, "files/config.json", "files/wandb-summary.json"]) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), '{"columns": [], "data": []}');
    }
    const expanded = await expandInputs([dir]);
    expect(expanded.files).toEqual([join(dir, table)]);
    expect(expanded.notes[0]).toContain(join(dir, "files/config.json"));
  });

  it("ART's trajectories YAML step files are read, and a config.yaml beside them noted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "expand-art-"));
    for (const name of [
      "trajectories/train/0001.yaml",
      "trajectories/val/0000.yaml",
      "config.yaml",
    ]) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), "- metadata: {}\n");
    }
    const expanded = await expandInputs([dir]);
    expect(expanded.files).toEqual([
      join(dir, "trajectories/train/0001.yaml"),
      join(dir, "trajectories/val/0000.yaml"),
    ]);
    expect(expanded.notes[0]).toContain(join(dir, "config.yaml"));
  });

  it("JSON files a directory walk leaves out by name are noted, never dropped without a word", async () => {
    const dir = mkdtempSync(join(tmpdir(), "expand-notes-"));
    for (const name of [
      "a.jsonl",
      "config.json",
      "metrics.jsonl",
      "sub/aggregated_results.jsonl",
    ]) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), "{}\n");
    }
    writeFileSync(join(dir, "notes.txt"), "not JSON: not noted\n");
    const expanded = await expandInputs([dir]);
    expect(expanded.files).toEqual([join(dir, "a.jsonl")]);
    expect(expanded.problems).toEqual([]);
    expect(expanded.notes).toHaveLength(1);
    expect(expanded.notes[0]).toContain(`${dir}: left out 3 JSON or YAML file(s)`);
    for (const name of ["config.json", "metrics.jsonl", "sub/aggregated_results.jsonl"]) {
      expect(expanded.notes[0]).toContain(join(dir, name));
    }
    expect(expanded.notes[0]).not.toContain("notes.txt");
  });

  it("a directory is its rollout files, recursively, sorted by path, hidden ones and links to directories skipped", async () => {
    expect(await expandInputs(["runs"])).toEqual({
      files: [
        "runs/a.jsonl",
        "runs/b.jsonl",
        "runs/step_10/z.jsonl",
        "runs/step_2/deep/x.jsonl",
        "runs/step_2/y.ndjson",
      ],
      problems: [],
      notes: [],
    });
    expect((await expandInputs(["runs/"])).files[0]).toBe("runs/a.jsonl");
    expect((await expandInputs([join(root, "runs")])).files[0]).toBe(join(root, "runs/a.jsonl"));
  });

  it("a quoted glob is expanded by us, ** included", async () => {
    expect((await expandInputs(["runs/**/*.jsonl"])).files).toEqual([
      "runs/a.jsonl",
      "runs/b.jsonl",
      "runs/step_10/z.jsonl",
      "runs/step_2/deep/x.jsonl",
    ]);
    expect((await expandInputs(["runs/*.jsonl"])).files).toEqual(["runs/a.jsonl", "runs/b.jsonl"]);
    expect((await expandInputs(["runs/step_{2,10}/*"])).files).toEqual([
      "runs/step_10/z.jsonl",
      "runs/step_2/y.ndjson",
    ]);
    expect((await expandInputs(["**/*.txt"])).files).toEqual(["runs/notes.txt"]);
  });

  it("files stay as given (missing ones too), in argument order, without repeats", async () => {
    expect(await expandInputs(["runs/b.jsonl", "missing.jsonl", "runs", "runs/b.jsonl"])).toEqual({
      files: [
        "runs/b.jsonl",
        "missing.jsonl",
        "runs/a.jsonl",
        "runs/step_10/z.jsonl",
        "runs/step_2/deep/x.jsonl",
        "runs/step_2/y.ndjson",
      ],
      problems: [],
      notes: [],
    });
  });

  it("names an argument that names no file", async () => {
    expect(await expandInputs(["empty", "runs/*.parquet", "nowhere/*.jsonl"])).toEqual({
      files: [],
      problems: [
        "empty: no rollout file (.jsonl, .ndjson, .pt, .parquet, .pkl, .table.json) in this directory",
        "runs/*.parquet: no file matches this pattern",
        "nowhere/*.jsonl: no file matches this pattern",
      ],
      notes: [],
    });
  });
});

describe("a slime/miles --dump-details folder", () => {
  it("contributes its rollout dumps only (train_data/, trajectory/ and dashboard/ are read through them or not at all)", async () => {
    const root = mkdtempSync(join(tmpdir(), "rollout-lens-details-"));
    for (const sub of ["rollout_data", "train_data", "trajectory", "dashboard"])
      mkdirSync(join(root, sub));
    writeFileSync(join(root, "rollout_data", "3.pt"), "");
    writeFileSync(join(root, "train_data", "3_0.pt"), "");
    writeFileSync(join(root, "trajectory", "3.jsonl"), "");
    writeFileSync(join(root, "dashboard", "metrics.jsonl"), "");
    expect(await expandInputs([root])).toEqual({
      files: [join(root, "rollout_data", "3.pt")],
      problems: [],
      notes: [],
    });
  });
});
