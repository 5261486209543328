import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { stringifyJsonLine } from "../../src/core/formats/jsonLine";
import { writeRolloutLens } from "../../src/core/formats/rolloutLens";
import { correction } from "../../src/core/mismatch/mismatch";
import { trajectoryMismatch } from "../../src/core/mismatch/trajectoryMismatch";
import { forkEpisodeSchema } from "../../src/core/wire/episodes";
import { branchFileRow, departure } from "../commands/branch";
import { refusalText } from "../rescore/familyGuard";
import { rescoreTrajectory } from "../rescore/rescoreTrajectory";
import { rowUrl, type ToolRun } from "./toolTypes";

// The tools that reach SGLang (their schemas: toolSpecs.ts): only with an upstream, never
// writing to a served file; branches go to the data directory's episodes.jsonl.

function upstreamOf(rt: Parameters<ToolRun>[1]) {
  const upstream = rt.upstream;
  if (!upstream) {
    throw new Error(
      "no upstream: start the server with --sglang URL (`rollout-lens mcp --sglang URL FILE...`) to rescore or branch",
    );
  }
  return upstream;
}

export const rescore: ToolRun = async (args, rt, ctx) => {
  const upstream = upstreamOf(rt);
  const loaded = await rt.files.load(String(args.file));
  const row = Number(args.row);
  const t = await loaded.trajectory(row);
  const verdict = await upstream.guard(t);
  if (verdict.status === "mismatch" && args.force !== true) {
    throw new Error(refusalText(verdict, "force: true"));
  }
  const release = upstream.hold(1);
  try {
    const { trajectory, result } = await rescoreTrajectory(upstream.client, t);
    loaded.revise(row, trajectory);
    const vs = trajectoryMismatch(
      trajectory,
      ["rescored", "sampled"],
      correction("token-trunc", { cap: 2 }),
    );
    const stats = vs.ok ? (({ segments: _s, ...rest }) => rest)(vs.result.stats) : null;
    return {
      ...{ file: loaded.file.id, row, id: t.id },
      family: { status: verdict.status, message: verdict.message },
      scored: result.lane.filter((v) => v !== null).length,
      vs_sampled: stats ?? { none: vs.ok ? "" : vs.message },
      note: "get_tokens on this row now shows lanes.rescored (kept for this session; the file is not written)",
      url: rowUrl(ctx, loaded.file.id, row),
    };
  } finally {
    release();
  }
};

export const branch: ToolRun = async (args, rt, ctx) => {
  const upstream = upstreamOf(rt);
  const loaded = await rt.files.load(String(args.file));
  const n = Number(args.n ?? 1);
  const parsed = forkEpisodeSchema.safeParse({
    fork: {
      file: "f1",
      row: args.row,
      index: args.index,
      ...(args.tool_result === undefined ? {} : { tool_result: args.tool_result }),
    },
    n,
    ...(args.temperature === undefined
      ? {}
      : { sampling_params: { temperature: args.temperature } }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join(".") ?? "request"}: ${issue?.message ?? "invalid"}`);
  }
  const release = upstream.hold(n);
  const store = join(rt.dataDir, "episodes.jsonl");
  try {
    await mkdir(rt.dataDir, { recursive: true });
    const outcome = await branchFileRow({
      path: loaded.file.path,
      body: parsed.data,
      sglang: upstream.urls.join(","),
      signal: new AbortController().signal,
      ...(rt.files.picked === undefined ? {} : { tokenizer: rt.files.picked }),
      onBranch: (final) => appendFile(store, `${stringifyJsonLine(writeRolloutLens(final))}\n`),
    });
    if (!outcome.ok) throw new Error(outcome.error);
    return {
      ...{ file: loaded.file.id, row: Number(args.row), index: parsed.data.fork.index },
      tokenizer: { name: outcome.tokenizer.name, why: outcome.tokenizer.why },
      stored_in: "episodes (the data directory's episodes.jsonl; list_files, file id `episodes`)",
      branches: outcome.finals.map((f) => ({
        id: f.id,
        status: f.status,
        tokens: f.segments.reduce((k, s) => k + s.tokenIds.length, 0),
        departs: departure(outcome.parent, f, parsed.data.fork.index),
      })),
      url: rowUrl(ctx, loaded.file.id, Number(args.row), parsed.data.fork.index),
    };
  } finally {
    release();
  }
};
