/**
 * Deterministic rollout-lens/v1 JSONL lines for e2e tests and benchmarks, written as strings (no
 * trajectory objects) so a 1 GiB file is generated in seconds. Line `k` is 0-based.
 */

import { seededRandom } from "../core/random";

const random = seededRandom;

export interface GeneratedLineOptions {
  /** Total tokens of the trajectory. */
  readonly tokens: number;
  /** Trajectories per GRPO group (`group` = `g<k / groupSize>`). */
  readonly groupSize?: number;
}

const STATUSES = ["completed", "completed", "completed", "truncated", "aborted"] as const;

/** One rollout-lens/v1 line: prompt, model turn with a tool call, tool result, final model turn. */
export function generateLine(k: number, options: GeneratedLineOptions): string {
  const rnd = random(k + 1);
  const n = Math.max(8, options.tokens);
  const prompt = Math.max(2, Math.floor(n * 0.2));
  const model1 = Math.max(2, Math.floor(n * 0.3));
  const tool = Math.max(2, Math.floor(n * 0.2));
  const model2 = n - prompt - model1 - tool;
  const ids: number[] = [];
  const mask: number[] = [];
  const lps: string[] = [];
  const spans: [number, number, number][] = [
    [0, prompt, 0],
    [1, model1, 1],
    [0, tool, 0],
    [1, model2, 1],
  ];
  for (const [isModel, length] of spans) {
    for (let i = 0; i < length; i++) {
      ids.push(Math.floor(rnd() * 150_000));
      mask.push(isModel);
      lps.push(isModel ? (-rnd() * 2).toFixed(5) : "null");
    }
  }
  const status = STATUSES[k % STATUSES.length] ?? "completed";
  const groupSize = options.groupSize ?? 4;
  const group = Math.floor(k / groupSize);
  // Every third group is all-correct: a zero-variance group, as GRPO files really have.
  const reward = group % 3 === 0 ? 1 : Math.round(rnd() * 4) / 4;
  const toolError = k % 7 === 3;
  const finish = status === "truncated" ? "length" : status === "aborted" ? "abort" : "stop";
  const callText = toolError
    ? "<tool_call>{bad json</tool_call>"
    : '<tool_call>{"name":"calc"}</tool_call>';
  const toolCall = toolError
    ? `{"id":"call_0000","name":"","arguments":{},"raw":"{bad json","span":[0,${callText.length}],"error":"invalid JSON in tool call"}`
    : `{"id":"call_0000","name":"calc","arguments":{},"raw":"{\\"name\\":\\"calc\\"}","span":[0,${callText.length}],"result":"105"}`;
  const a = prompt;
  const b = a + model1;
  const c = b + tool;
  const segments = [
    `{"kind":"prompt","turn":0,"start":0,"end":${a},"text":"Episode ${k}: what is 15*7?"}`,
    `{"kind":"model","turn":1,"start":${a},"end":${b},"text":${JSON.stringify(callText)},"finish_reason":{"type":"stop"},"tool_calls":[${toolCall}]}`,
    `{"kind":"tool","turn":1,"start":${b},"end":${c},"text":"105"}`,
    `{"kind":"model","turn":2,"start":${c},"end":${n},"text":"The answer is ${k % 2 === 0 ? 105 : 104}.","finish_reason":{"type":"${finish}"}}`,
  ];
  return `{"format":"rollout-lens/v1","id":"ep-${String(k).padStart(6, "0")}","status":"${status}","reward":${reward},"group":"g${group}","token_ids":[${ids.join(",")}],"loss_mask":[${mask.join(",")}],"logprobs":[${lps.join(",")}],"segment_info":[[false,${prompt}],[true,${model1}],[false,${tool}],[true,${model2}]],"segments":[${segments.join(",")}],"metadata":{}}`;
}
