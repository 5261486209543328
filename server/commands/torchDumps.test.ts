import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../cli";

/*
 * slime/miles `.pt` dumps on the command line, unconverted: files written by real torch.save
 * (scripts/fixtures/torch_fixtures.py), 36 Llama-3 calculator episodes.
 */

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../src/test/fixtures/torch/${name}`, import.meta.url));

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("slime rollout dumps (.pt) on the command line", () => {
  const rollout = fixture("slime-rollout.pt");

  it("validate reads every sample of the dump", async () => {
    const { code, out } = await run(["validate", rollout]);
    expect(out).toBe(
      `${rollout}: slime, 36 trajectories from 36 valid lines (36 lines, 0 blank, 0 bad)`,
    );
    expect(code).toBe(0);
  });

  it("drift with no flags picks llama3 from the ids and finds no drift", async () => {
    const { code, out } = await run(["drift", rollout, "--json"]);
    const report = JSON.parse(out);
    expect(report.files[0].tokenizer).toMatchObject({ name: "llama3", reason: "ids" });
    expect(report.files[0]).toMatchObject({ checked: 36, drifted: 0, unchecked: 0 });
    expect(code).toBe(0);
  });

  it("mismatch compares the teacher lane against the sampled logprobs", async () => {
    const { code, out } = await run(["mismatch", rollout, "--json"]);
    const report = JSON.parse(out);
    expect(report.files[0].trajectories).toHaveLength(36);
    expect(report.files[0].trajectories[0].lanes).toEqual(["teacher", "sampled"]);
    expect(code).toBe(0);
  });

  it("a torch.save file without samples says what it holds, exit 2", async () => {
    const { code, out } = await run(["validate", fixture("values.pt")]);
    expect(out).toContain("a torch.save file with no rollout samples: keys int64, int32");
    expect(code).toBe(2);
  });
});
