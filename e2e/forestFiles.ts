import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A slime Sample line as slime's dump writes one: full tokens, response-only mask and logprobs. */
function slimeSample(group: number, response: number[], reward: number): string {
  const prompt = [
    151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645, 198, 151644, 77091, 198,
  ];
  return JSON.stringify({
    group_index: group,
    index: 0,
    rollout_id: null,
    tokens: [...prompt, ...response],
    response_length: response.length,
    loss_mask: response.map(() => 1),
    rollout_log_probs: response.map((_, k) => -0.05 * (k + 1)),
    reward,
    status: "completed",
  });
}

const answer = [785, 4226, 374, 220, 19, 13, 151645];

/**
 * Three GRPO groups: group 0 scores every member alike though their answers part at the sixth
 * response token (zero variance: equal-reward, with a branch point); group 1 is two copies of one
 * completion (zero variance: identical); group 2 has a reward spread.
 */
export async function writeForestFile(dir: string): Promise<string> {
  const lines = [
    slimeSample(0, answer, 1),
    slimeSample(0, [...answer.slice(0, 5), 0, 151645], 1),
    slimeSample(0, [...answer.slice(0, 5), 2, 2, 151645], 1),
    slimeSample(1, answer, 0),
    slimeSample(1, answer, 0),
    slimeSample(2, answer, 1),
    slimeSample(2, [40, 1513, 944, 1414, 13, 151645], 0),
  ];
  const file = join(dir, "forest-groups.jsonl");
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}
