import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tokenizer } from "../../src/core/tokenizer/types";
import { loadTokenizer } from "../tokenizers";

/*
 * Writes `src/test/fixtures/prime-rl-run/`: a prime-rl output directory as its FileMonitor writes
 * it (PrimeIntellect-ai/prime-rl:src/prime_rl/monitors/file.py, `log_episodes`:
 * `rollouts/step_{N}/{train|eval}/{all|effective}/traces.jsonl`, one `Episode.to_record()` per
 * line, plus `metrics.jsonl`), its records built as verifiers builds them
 * (PrimeIntellect-ai/verifiers:verifiers/v1/episode.py `to_record`, exclude_none;
 * verifiers/v1/graph.py `_commit_turn`: input nodes get their message span, the assistant node
 * the generation prompt + its sampled completion, mask True on the completion only; a re-rendered
 * prior that no longer matches the stored tokens forks a new branch). Real Llama-3 ids. Run:
 * `npx tsx test-support/fixtureWriters/primeRlRun.ts`.
 */

const MODEL = "meta-llama/Llama-3.2-1B-Instruct";
const OUT = join(dirname(fileURLToPath(import.meta.url)), "../../src/test/fixtures/prime-rl-run");

type Msg = Record<string, unknown> & { role: string; content: string };
type Node = Record<string, unknown>;

/** Llama-3 rendering of one message (the chat template's per-message block). */
function block(m: Msg): string {
  const role = m.role === "tool" ? "ipython" : m.role;
  const body = m.tool_calls
    ? (m.tool_calls as { name: string; arguments: string }[])
        .map((c) => `{"name": "${c.name}", "parameters": ${c.arguments}}`)
        .join("")
    : m.content;
  return `<|start_header_id|>${role}<|end_header_id|>\n\n${body}<|eot_id|>`;
}

const GEN = "<|start_header_id|>assistant<|end_header_id|>\n\n";

let seed = 7;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const logprob = () => -Math.round(rand() * 2.5 * 1e4) / 1e4;

class TraceBuilder {
  readonly nodes: Node[] = [];
  readonly calls: Record<string, unknown>[] = [];
  /** Stored node path of the current conversation, and its token ids. */
  private path: number[] = [];
  private t = 1_760_000_000;
  constructor(private readonly tok: Tokenizer) {}

  /** One model turn: `prompt` messages rendered (the stored prefix reused by token identity). */
  turn(prompt: Msg[], reply: Msg, finish: string): void {
    const texts = prompt.map(block);
    const full = this.tok.encode(`<|begin_of_text|>${texts.join("")}${GEN}`);
    // message spans: ends of each message in `full`
    const ends = texts.map(
      (_, i) => this.tok.encode(`<|begin_of_text|>${texts.slice(0, i + 1).join("")}`).length,
    );
    let keep = 0;
    let off = 0;
    for (const nid of this.path) {
      const ids = this.nodes[nid]?.token_ids as number[];
      if (full.slice(off, off + ids.length).join() !== ids.join()) break;
      off += ids.length;
      keep += 1;
    }
    const path = this.path.slice(0, keep);
    let parent = path.at(-1);
    let cursor = off;
    for (let i = keep; i < prompt.length; i++) {
      const ids = full.slice(cursor, ends[i]);
      this.nodes.push(
        this.node(
          parent,
          prompt[i] as Msg,
          false,
          ids,
          ids.map(() => false),
          [],
        ),
      );
      parent = this.nodes.length - 1;
      path.push(parent);
      cursor = ends[i] as number;
    }
    const gen = full.slice(cursor);
    const completion = this.tok.encode(`${block(reply).slice(GEN.length)}`);
    const lps = completion.map(logprob);
    const mask = [...gen.map(() => false), ...completion.map(() => true)];
    this.nodes.push(this.node(parent, reply, true, [...gen, ...completion], mask, lps));
    const id = this.nodes.length - 1;
    path.push(id);
    this.path = path;
    this.calls.push({
      node: id,
      model: MODEL,
      sampling: { temperature: 1.0, top_p: 1.0, max_tokens: 512 },
      endpoint: "/chat/completions",
      finish_reason: finish,
      usage: { prompt_tokens: full.length, completion_tokens: completion.length },
      time: { start: this.t, end: this.t + 0.8 },
    });
  }

  private node(
    parent: number | undefined,
    message: Msg,
    sampled: boolean,
    ids: number[],
    mask: boolean[],
    logprobs: number[],
  ): Node {
    this.t += 1;
    return {
      ...(parent === undefined ? {} : { parent }),
      message,
      sampled,
      timestamp: this.t,
      token_ids: ids,
      mask,
      is_content: [],
      logprobs,
    };
  }
}

const SYSTEM: Msg = { role: "system", content: "You are a careful calculator agent." };
const TOOLS = [
  {
    name: "calculator",
    description: "Evaluate an arithmetic expression.",
    parameters: { type: "object", properties: { expression: { type: "string" } } },
  },
];

function callMsg(id: string, expr: string): Msg {
  return {
    role: "assistant",
    content: "",
    tool_calls: [{ id, name: "calculator", arguments: `{"expression": "${expr}"}` }],
  };
}

/** A calculator episode: call the tool, read its result, answer. `fork` rewrites the call. */
function trace(tok: Tokenizer, q: string, expr: string, value: string, fork: boolean) {
  const b = new TraceBuilder(tok);
  const user: Msg = { role: "user", content: q };
  const call = callMsg("call_0", expr);
  b.turn([SYSTEM, user], call, "tool_calls");
  // The harness restates the call with its arguments normalised: the re-rendered prior no longer
  // matches the stored tokens, so verifiers forks a new branch at the user node.
  const restated = fork ? callMsg("call_0", expr.replaceAll(" ", "")) : call;
  const result: Msg = { role: "tool", tool_call_id: "call_0", content: value, name: "calculator" };
  b.turn(
    [SYSTEM, user, restated, result],
    { role: "assistant", content: `The answer is ${value}.` },
    "stop",
  );
  return b;
}

interface EpisodeSpec {
  q: string;
  expr: string;
  value: string;
  answer: string;
  fork: boolean;
}

function episode(tok: Tokenizer, spec: EpisodeSpec, k: number, step: number, kind: string) {
  const b = trace(tok, spec.q, spec.expr, spec.value, spec.fork);
  const correct = spec.value === spec.answer ? 1.0 : 0.0;
  const task = {
    type: "Task",
    data: { question: spec.q, answer: spec.answer },
    key: `task-${spec.answer}`,
    hash: `h${spec.answer}`,
  };
  return {
    id: `ep${step}${kind[0]}${k}`,
    env: { id: "calculator-tools", name: "calc" },
    task,
    group: { id: `grp-${step}-${kind}` },
    run: {
      type: "train",
      id: "run-calc-llama",
      name: "calc-grpo",
      work: { type: kind, step, policy: { start: Math.max(0, step - 1), end: step } },
    },
    ok: true,
    errors: [],
    traces: [
      {
        version: 1,
        id: `tr${step}${kind[0]}${k}`,
        verifiers: { version: "0.2.0" },
        task,
        agent: { config: { harness: "default", model: MODEL }, name: "agent", trainable: true },
        tools: TOOLS,
        nodes: b.nodes,
        calls: b.calls,
        request_rewrites: [],
        response_rewrites: [],
        rewards: { correct: { score: correct, weight: 1.0 } },
        metrics: { num_turns: 2 },
        info: {},
        extra_usage: [],
        is_completed: true,
        ok: true,
        stop_condition: "no_tool_calls",
        errors: [],
        timing: { start: 1_760_000_000 + k },
      },
    ],
  };
}

type Episode = ReturnType<typeof episode>;

/** prime-rl `assign_advantages` (scalar per trace) and `assign_reference_logprobs`. */
function finalized(episodes: Episode[]): Episode[] {
  const rewards = episodes.map((e) => e.traces[0]?.rewards.correct.score ?? 0);
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  return episodes.map((e, k) => {
    const adv = (rewards[k] ?? 0) - mean;
    const traces = e.traces.map((t) => ({
      ...t,
      nodes: t.nodes.map((n) => {
        const sampled = (n.mask as boolean[]).filter(Boolean).length;
        if (!sampled) return n;
        const lps = n.logprobs as number[];
        return {
          ...n,
          advantages: lps.map(() => adv),
          reference_logprobs: lps.map((v) => Math.round((v - 0.01 - rand() * 0.05) * 1e4) / 1e4),
        };
      }),
    }));
    return { ...e, traces };
  });
}

function write(path: string, lines: unknown[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

const SPECS: EpisodeSpec[][] = [
  [
    { q: "What is 23 * 19?", expr: "23 * 19", value: "437", answer: "437", fork: true },
    { q: "What is 23 * 19?", expr: "23 * 18", value: "414", answer: "437", fork: false },
  ],
  [
    { q: "What is 17 + 26?", expr: "17 + 26", value: "43", answer: "43", fork: false },
    { q: "What is 17 + 26?", expr: "17 + 62", value: "79", answer: "43", fork: true },
  ],
];

async function main(): Promise<void> {
  const tok = await loadTokenizer("llama3");
  rmSync(OUT, { recursive: true, force: true });
  for (const [step, specs] of SPECS.entries()) {
    const all = specs.map((s, k) => episode(tok, s, k, step, "train"));
    const dir = join(OUT, "rollouts", `step_${step}`);
    write(join(dir, "train/all/traces.jsonl"), all);
    write(join(dir, "train/effective/traces.jsonl"), finalized(all));
  }
  const evalSpec = {
    q: "What is 12 * 12?",
    expr: "12 * 12",
    value: "144",
    answer: "144",
    fork: false,
  };
  write(join(OUT, "rollouts/step_1/eval/all/traces.jsonl"), [episode(tok, evalSpec, 0, 1, "eval")]);
  write(join(OUT, "metrics.jsonl"), [
    { step: 0, time: 1760000000.5, "reward/mean": 0.5, "loss/mean": 0.01 },
    { step: 1, time: 1760000100.5, "reward/mean": 0.5, "loss/mean": 0.009 },
  ]);
}

await main();
