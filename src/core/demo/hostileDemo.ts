import type { Segment, Trajectory } from "../trajectory/types";

/**
 * Rollout text written to attack the viewer: markup, event handlers, `javascript:` links, entities,
 * bidi overrides and zero-width characters. The view must draw all of it as inert, visible text.
 */
export const HOSTILE_TEXTS = [
  "<script>window.__pwned = 'script'</script>",
  "<img src=x onerror=\"window.__pwned = 'img'\">",
  "<svg onload=\"window.__pwned = 'svg'\"></svg>",
  "<a href=\"javascript:window.__pwned = 'link'\">click me</a>",
  "&lt;b&gt;bold&lt;/b&gt; &amp; &#x3C;script&#x3E;",
  "invoice\u202Etxt.exe",
  "zero\u200Bwidth\u200Djoin\u2066isolate\u2069\uFEFF",
  "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
] as const;

/** Splits text into pieces of at most `size` UTF-16 units, never inside a surrogate pair. */
function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const ch of text) {
    if (current.length + ch.length > size) {
      out.push(current);
      current = "";
    }
    current += ch;
  }
  if (current) out.push(current);
  return out;
}

function segment(kind: Segment["kind"], turn: number, pieces: readonly string[], first: number) {
  const ids = pieces.map((_, i) => first + i);
  const isModel = kind === "model";
  return {
    kind,
    turn,
    tokenIds: ids,
    lossMask: ids.map((): 0 | 1 => (isModel ? 1 : 0)),
    logprobs: ids.map((_, i) => (isModel ? -0.05 * ((i % 7) + 1) : null)),
    text: pieces.join(""),
  } satisfies Segment;
}

/** The hostile demo: a prompt and a model turn holding every attack, plus a hostile tool call. */
export function hostileDemo(): { trajectory: Trajectory; pieces: string[] } {
  const promptPieces = chunk(`Summarize: ${HOSTILE_TEXTS.join(" | ")}`, 6);
  const callText = `<tool_call>{"name": "<img src=x onerror=window.__pwned='card'>", "arguments": {"q": "${HOSTILE_TEXTS[0]}"}}</tool_call>`;
  const modelPieces = chunk(`${HOSTILE_TEXTS.join("\n")}\n${callText}`, 5);
  const prompt = segment("prompt", 0, promptPieces, 1_000);
  const model = segment("model", 1, modelPieces, 5_000);
  const start = model.text.indexOf("<tool_call>");
  return {
    trajectory: {
      id: "demo-hostile",
      source: { kind: "live" },
      format: "rollout-lens/v1",
      model: "<b onmouseover=\"window.__pwned='meta'\">model</b>",
      tokenizer: "qwen3",
      status: "completed",
      segments: [
        prompt,
        {
          ...model,
          finishReason: { type: "stop", matched: "</tool_call>" },
          toolCalls: [
            {
              id: "call_0000",
              name: "<img src=x onerror=window.__pwned='card'>",
              arguments: { q: HOSTILE_TEXTS[0], link: "javascript:window.__pwned='arg'" },
              raw: callText,
              span: [start, model.text.length],
              result: `${HOSTILE_TEXTS[3]} \u202Egnp.exe`,
            },
          ],
        },
      ],
      metadata: { demo: "hostile" },
    },
    pieces: [...promptPieces, ...modelPieces],
  };
}
