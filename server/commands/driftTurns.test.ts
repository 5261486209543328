import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fixturePath } from "../../src/test/fixtureFiles";
import { driftCommand } from "./drift";

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await driftCommand(args, { out: (t) => out.push(t), err: (t) => out.push(t) });
  return { code, out: out.join("\n") };
}

const turnsSchema = z.array(
  z.object({
    turn: z.number(),
    class: z.enum(["CLEAN", "REALIGN", "FORK"]),
    first_divergence_index: z.number().nullable(),
    rule: z.string().nullable(),
    sentence: z.string().optional(),
    diffs: z
      .array(
        z.object({
          t: z.tuple([z.number(), z.number()]),
          r: z.tuple([z.number(), z.number()]),
          removed: z.array(z.tuple([z.number(), z.string()])),
          inserted: z.array(z.tuple([z.number(), z.string()])),
        }),
      )
      .optional(),
  }),
);
const reportSchema = z.object({
  files: z.array(
    z.object({
      results: z.array(z.looseObject({ mode: z.string(), turns: turnsSchema.optional() })),
    }),
  ),
});

// A Qwen3 record with two user turns: the model thought in turn 1; re-rendering the history for
// turn 2 drops that <think> block (src/test/fixtures/README.md).
const FILE = fixturePath("qwen3-stripped-thinking.jsonl");

describe("rollout-lens drift --mode template: the per-turn prefix check", () => {
  it.each([
    ["in process", []],
    ["on two worker threads", ["--jobs", "2"]],
  ])(
    "--json lists every turn with its class, first divergence and rule (%s)",
    async (_, extra) => {
      const { code, out } = await run([FILE, "--mode", "template", "--json", ...extra]);
      expect(code).toBe(1);
      const report = reportSchema.parse(JSON.parse(out));
      const template = report.files[0]?.results.find((r) => r.mode === "template");
      const turns = template?.turns ?? [];
      expect(turns.map((k) => [k.turn, k.class, k.first_divergence_index, k.rule])).toEqual([
        [1, "CLEAN", null, null],
        [2, "FORK", 15, "qwen3.strip-think"],
      ]);
      const removed = turns[1]?.diffs?.flatMap((d) => d.removed.map(([, piece]) => piece));
      expect(removed?.join("")).toBe("<think>\nTwo plus two is four.\n</think>\n\n");
      expect(turns[1]?.sentence).toMatch(
        /^Qwen3's template drops <think>…<\/think> from assistant turns/,
      );
    },
    60_000,
  );

  it("the human output has one short line per non-CLEAN turn", async () => {
    const { out } = await run([FILE, "--mode", "template"]);
    const lines = out.split("\n").filter((l) => l.includes(" template turn "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /qwen3-stripped-thinking\.jsonl:1 qwen3-stripped-thinking template turn 2: FORK at token 15 \(qwen3\.strip-think\): Qwen3's template drops/,
    );
  });

  it("roundtrip mode has no turns", async () => {
    const { out } = await run([FILE, "--json"]);
    const report = reportSchema.parse(JSON.parse(out));
    expect(report.files[0]?.results.every((r) => r.turns === undefined)).toBe(true);
  });
});
