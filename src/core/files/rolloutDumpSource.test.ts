import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { namedBytes } from "../../../test-support/namedBytes";
import { op, pickle, torchZip } from "../../../test-support/torchZip";
import { fixturePath } from "../../test/fixtureFiles";
import { readRolloutValue } from "../formats/readRolloutLine";
import { type NamedFile, rolloutDumpSource } from "./torchRecords";

// slime/miles dump files read together: the server's listing of a rollout dump with its train
// dumps, or several `.pt` dropped on the files page at once (in any order).

const named = namedBytes;
const fixture = (name: string) => named(name, readFileSync(fixturePath(`torch/${name}`)));
const rollout = () => fixture("dump-details/rollout_data/3.pt");
const train = () => fixture("dump-details/train_data/3_0.pt");

/** A format_version 2 train dump of rollout `id` with one sample at rollout position 0. */
function trainOf(id: number): NamedFile {
  const bytes = torchZip(
    pickle(
      op.proto,
      op.emptyDict,
      op.mark,
      ...[op.str("format_version"), op.int(2), op.str("rollout_id"), op.int(id)],
      op.str("samples"),
      op.emptyList,
      op.emptyDict,
      op.mark,
      ...[op.str("rollout_position"), op.int(0)],
      op.setitems,
      op.append,
      op.setitems,
      op.stop,
    ),
  );
  return named(`train_data/${id}_0.pt`, bytes);
}

async function firstLanes(files: NamedFile[]): Promise<string[]> {
  const source = await rolloutDumpSource(files);
  const [record] = await source.read(0, 1);
  const read = readRolloutValue(record as Record<string, unknown>, 1);
  if (read.kind !== "trajectories") throw new Error(JSON.stringify(read));
  return Object.keys(read.trajectories[0]?.logprobLanes ?? {}).sort();
}

describe("dump files read together", () => {
  it("joins the train dump whichever order they come in", async () => {
    expect(await firstLanes([rollout(), train()])).toEqual(["reference", "teacher", "trainer"]);
    expect(await firstLanes([train(), rollout()])).toEqual(["reference", "teacher", "trainer"]);
    expect(await firstLanes([rollout()])).toEqual(["teacher"]);
  });

  it("refuses a train dump of another rollout, naming both", async () => {
    await expect(rolloutDumpSource([rollout(), trainOf(4)])).rejects.toThrow(
      "train_data/4_0.pt is a train dump of rollout 4, not of dump-details/rollout_data/3.pt (rollout 3)",
    );
  });

  it("needs exactly one rollout dump among several files", async () => {
    await expect(rolloutDumpSource([train(), trainOf(3)])).rejects.toThrow(
      "no rollout dump among dump-details/train_data/3_0.pt, train_data/3_0.pt",
    );
    await expect(
      rolloutDumpSource([rollout(), fixture("slime-rollout.pt"), train()]),
    ).rejects.toThrow("2 rollout dumps read together");
  });

  it("a file that is no dump is named", async () => {
    await expect(rolloutDumpSource([rollout(), fixture("values.pt")])).rejects.toThrow(
      "values.pt: a torch.save file with no rollout samples",
    );
  });
});
