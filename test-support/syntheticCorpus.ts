import { seededRandom } from "../src/core/random";
import type { Tokenizer } from "../src/core/tokenizer/types";
import type { Segment, Trajectory } from "../src/core/trajectory/types";

/** Which retokenization drift a generated trajectory carries (docs/drift.md). */
export type InjectedDrift =
  | "none"
  | "split" // E1: a model token split into two non-canonical pieces
  | "length_cut" // E3: a length-cut turn ending in `.` before the `\n` separator
  | "byte_tokens" // E5: an emoji emitted as single-byte tokens
  | "spelled_special" // E2b: `<tool_call>` spelled with ordinary pieces
  | "dangling_bytes"; // E5: a cut inside a character (lossy decode)

export const INJECTED_DRIFTS: readonly InjectedDrift[] = [
  "split",
  "length_cut",
  "byte_tokens",
  "spelled_special",
  "dangling_bytes",
];

export interface GeneratedTrajectory {
  readonly trajectory: Trajectory;
  readonly injected: InjectedDrift;
}

/** Encodes many texts at once (native `encodeBatch`, or the JS tokenizer in a loop). */
export type BatchEncoder = (texts: readonly string[]) => Promise<number[][]>;

const rng = seededRandom;

const WORDS =
  "the a to of and is in that it for we need check file result value function error test output list run command path config update return because first then next so now let me look at this line number data model token user request tool call response".split(
    " ",
  );
const EXTRA = [
  "naïve",
  "café",
  "東京",
  "日本語",
  "données",
  "Straße",
  "🙂",
  "🌧",
  "✓",
  "→",
  "—",
  "½",
  "x²",
  "ångström",
  "Ελληνικά",
  "русский",
];
const CODE = [
  "def main():\n    return 0\n",
  "for i in range(10):\n    print(i)\n",
  "const x = await fetch(url);\n",
  "if (a && b) { return a + b; }\n",
  "SELECT id, name FROM users WHERE id = 42;\n",
  "git diff --stat HEAD~1\n",
  '  File "main.py", line 12, in <module>\n',
  '{"status": "ok", "items": [1, 2, 3]}\n',
  '    assert result == expected, f"got {result}"\n',
  "\t\tindent(tabs);\r\n",
];
const TOOLS = ["read_file", "run_shell", "search", "calculator", "write_file"];

function pick<T>(r: () => number, list: readonly T[]): T {
  const v = list[Math.floor(r() * list.length)];
  if (v === undefined) throw new Error("empty list");
  return v;
}

function sentence(r: () => number): string {
  const n = 4 + Math.floor(r() * 14);
  const words: string[] = [];
  for (let k = 0; k < n; k++) {
    const roll = r();
    if (roll < 0.05) words.push(pick(r, EXTRA));
    else if (roll < 0.1) words.push(String(Math.floor(r() * 100000)));
    else if (roll < 0.13) words.push(`'${pick(r, WORDS)}'`);
    else words.push(pick(r, WORDS));
  }
  const text = words.join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${pick(r, [".", ".", "?", ":", "!", "..."])}`;
}

function paragraph(r: () => number, sentences: number): string {
  const out: string[] = [];
  for (let k = 0; k < sentences; k++) out.push(sentence(r));
  return out.join(r() < 0.2 ? "\n" : " ");
}

function toolResult(r: () => number): string {
  const roll = r();
  if (roll < 0.4) {
    let code = "";
    for (let k = 0, n = 2 + Math.floor(r() * 8); k < n; k++) code += pick(r, CODE);
    return code;
  }
  if (roll < 0.7) {
    return JSON.stringify({ ok: r() < 0.8, value: Math.floor(r() * 1e6), note: sentence(r) });
  }
  return paragraph(r, 2 + Math.floor(r() * 4));
}

interface PlannedSegment {
  readonly kind: Segment["kind"];
  readonly text: string;
  readonly closed: boolean;
}

function plan(r: () => number, tokenizer: Tokenizer, injected: InjectedDrift): PlannedSegment[] {
  const tools = TOOLS.map((name) => ({
    type: "function" as const,
    function: { name, description: `Tool ${name}`, parameters: { type: "object" } },
  }));
  const first = tokenizer.applyChatTemplate(
    [
      { role: "system", content: "You are a coding agent. Think, then call tools." },
      { role: "user", content: paragraph(r, 1 + Math.floor(r() * 3)) },
    ],
    { tools, addGenerationPrompt: true },
  );
  const segments: PlannedSegment[] = [{ kind: "prompt", text: first, closed: true }];
  const turns = 1 + Math.floor(r() * 6);
  for (let k = 0; k < turns; k++) {
    const isLast = k === turns - 1;
    const thinking = `<think>\n${paragraph(r, 2 + Math.floor(r() * 6))}\n</think>\n\n`;
    const body = isLast
      ? paragraph(r, 2 + Math.floor(r() * 5))
      : `${sentence(r)}\n\n<tool_call>\n${JSON.stringify({ name: pick(r, TOOLS), arguments: { path: `src/${pick(r, WORDS)}.py`, n: Math.floor(r() * 50) } })}\n</tool_call>`;
    const cut = injected === "length_cut" && k === 0 && !isLast;
    segments.push({
      kind: "model",
      text: cut ? `${thinking}${sentence(r).replace(/[.?:!]+$/, "")}.` : `${thinking}${body}`,
      closed: !cut,
    });
    if (!isLast) {
      segments.push({
        kind: "tool",
        text: `\n<|im_start|>user\n<tool_response>\n${toolResult(r)}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`,
        closed: true,
      });
    }
  }
  return segments;
}

/** Ids of a single-byte token for every byte value (byte-level BPE vocabularies have all 256). */
function byteTokenIds(tokenizer: Tokenizer): number[] {
  const ids: number[] = [];
  for (let id = 0; id < Math.min(tokenizer.vocabSize, 1024); id++) {
    const b = tokenizer.tokenBytes(id);
    const v = b[0];
    if (b.length === 1 && v !== undefined && ids[v] === undefined) ids[v] = id;
  }
  return ids;
}

function mutate(
  r: () => number,
  tokenizer: Tokenizer,
  ids: number[],
  injected: InjectedDrift,
  byteIds: readonly number[],
): number[] {
  const bytesOf = (text: string) => [...new TextEncoder().encode(text)];
  const asBytes = (text: string) => bytesOf(text).map((b) => byteIds[b] ?? 0);
  switch (injected) {
    case "split": {
      // Pick a multi-character ordinary token and encode its halves separately.
      for (let attempt = 0; attempt < 50; attempt++) {
        const at = Math.floor(r() * ids.length);
        const id = ids[at] ?? 0;
        if (tokenizer.isAdded(id)) continue;
        const text = tokenizer.decode([id]);
        const chars = [...text];
        if (chars.length < 2 || text.includes("\uFFFD")) continue;
        const cut = 1 + Math.floor(r() * (chars.length - 1));
        const pieces = [
          ...tokenizer.encode(chars.slice(0, cut).join("")),
          ...tokenizer.encode(chars.slice(cut).join("")),
        ];
        return [...ids.slice(0, at), ...pieces, ...ids.slice(at + 1)];
      }
      return ids;
    }
    case "byte_tokens":
      return [...ids.slice(0, 3), ...asBytes(" 🙂"), ...ids.slice(3)];
    case "spelled_special": {
      const at = ids.indexOf(tokenizer.encode("<tool_call>")[0] ?? -1);
      if (at < 0) return [...tokenizer.encode("<"), ...tokenizer.encode("tool_call>"), ...ids];
      return [
        ...ids.slice(0, at),
        ...tokenizer.encode("<"),
        ...tokenizer.encode("tool_call>"),
        ...ids.slice(at + 1),
      ];
    }
    case "dangling_bytes": {
      const last = ids[ids.length - 1];
      const body =
        last !== undefined && tokenizer.eosTokenIds.includes(last) ? ids.slice(0, -1) : ids;
      return [...body, ...asBytes("🙂").slice(0, 2)];
    }
    default:
      return ids;
  }
}

/**
 * A reproducible corpus of Qwen-style agent trajectories (prompt with tools, thinking model turns
 * with tool calls, tool results with code/JSON/prose, multilingual words), `driftRate` of them
 * carrying one injected drift. Segment ids come from `encode`, so clean ones are canonical.
 */
export async function generateCorpus(
  tokenizer: Tokenizer,
  encode: BatchEncoder,
  options: { readonly seed: number; readonly count: number; readonly driftRate: number },
): Promise<GeneratedTrajectory[]> {
  const r = rng(options.seed);
  const imEnd = tokenizer.encode("<|im_end|>")[0] ?? 0;
  const byteIds = byteTokenIds(tokenizer);
  const plans = Array.from({ length: options.count }, () => {
    const injected = r() < options.driftRate ? pick(r, INJECTED_DRIFTS) : "none";
    return { injected, segments: plan(r, tokenizer, injected) };
  });
  const encoded = await encode(plans.flatMap((p) => p.segments.map((s) => s.text)));
  let next = 0;
  return plans.map((p, index) => {
    const segments = p.segments.map((s, k): Segment => {
      let ids = encoded[next++] ?? [];
      if (s.kind === "model" && s.closed) ids = [...ids, imEnd];
      const isLastModel = s.kind === "model" && k === p.segments.length - 1;
      if (s.kind === "model" && (p.injected === "dangling_bytes" ? isLastModel : k === 1)) {
        ids = mutate(
          r,
          tokenizer,
          ids,
          p.injected === "dangling_bytes" ? "dangling_bytes" : p.injected,
          byteIds,
        );
      }
      const mask: 0 | 1 = s.kind === "model" ? 1 : 0;
      return {
        kind: s.kind,
        turn: Math.ceil(k / 2),
        tokenIds: ids,
        lossMask: ids.map(() => mask),
        logprobs: ids.map(() => (s.kind === "model" ? -0.5 : null)),
      };
    });
    const trajectory: Trajectory = {
      id: `gen-${options.seed}-${index}`,
      source: { kind: "live" },
      format: "rollout-lens/v1",
      status: "completed",
      segments,
      metadata: { injected: p.injected },
    };
    return { trajectory, injected: p.injected };
  });
}
