import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { familyById } from "../../src/core/families/families";
import type { FamilyId } from "../../src/core/families/types";
import { rolloutLensLineSchema } from "../../src/core/formats/rolloutLensSchema";
import { initialPrompt, toolResultSuffix } from "../../src/core/tito/prompts";
import type { ChatTemplateMessage } from "../../src/core/tokenizer/types";
import { runEpisodeThroughApi, TWO_CALL_CALCULATOR } from "../../test-support/episodeApi";
import { callSim } from "../../test-support/sim";
import { buildApp } from "../app";
import { parseServerConfig } from "../config";
import { createServices } from "../services";
import { createSimApp } from "../sim/app";
import { generateResponseSchema } from "../sim/specShapes";
import { toToolSchema } from "../tools/types";
import type { ModelClient, ModelTurn } from "./modelClient";

/**
 * A live episode on every shipped family, end to end against the simulator: the prefix invariant
 * on every /generate call, and the final ids against the template's own rendering of the
 * conversation, equal except where the family's rules say the template rewrites history.
 */

interface Exchange {
  readonly inputIds: readonly number[];
  readonly turn: ModelTurn;
}

/** What each family's template does to the history of a two-call episode, by rule id. */
const REWRITES: Record<string, { rules: string[]; expected: (decoded: string) => string }> = {
  // The last turn's <|im_end|> is followed by the separator; no rewrite within one user query.
  qwen3: { rules: [], expected: (decoded) => `${decoded}\n` },
  llama3_1: { rules: [], expected: (decoded) => decoded },
  deepseek_v3: {
    rules: ["deepseek_v3.tool-outputs-once"],
    expected: (decoded) => {
      const open = "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>";
      const second = decoded.indexOf(open, decoded.indexOf(open) + 1);
      return `${decoded.slice(0, second)}\n<｜tool▁output▁begin｜>${decoded.slice(second + open.length)}`;
    },
  },
  gptoss: {
    rules: ["gptoss.return-to-end"],
    expected: (decoded) => decoded.replace(/<\|return\|>$/, "<|end|>"),
  },
};

function recording(exchanges: Exchange[]) {
  return (client: ModelClient): ModelClient => ({
    ...client,
    async generate(request) {
      const turn = await client.generate(request);
      exchanges.push({ inputIds: request.inputIds.slice(), turn });
      return turn;
    },
  });
}

describe.each(["qwen3", "llama3_1", "deepseek_v3", "gptoss"] as const)(
  "a two-tool-call episode on %s",
  (id: FamilyId) => {
    it("sends previous ids + the new suffix on every call; the ids decode to the template's rendering but for the family's rules", async () => {
      const family = familyById(id);
      if (!family?.toolCalls) throw new Error(`${id} has no tools`);
      const exchanges: Exchange[] = [];
      const data = mkdtempSync(join(tmpdir(), `rl-family-${id}-`));
      const services = await createServices(parseServerConfig({ data, tokenizer: id }), {
        wrapClient: recording(exchanges),
      });
      try {
        const stored = await runEpisodeThroughApi(buildApp(services), TWO_CALL_CALCULATOR);
        const line = rolloutLensLineSchema.parse(JSON.parse(stored));
        expect(line.status, JSON.stringify(line.metadata)).toBe("completed");
        expect(line.metadata).toMatchObject({
          family: id,
          family_rules: family.rules.map((r) => r.id),
        });
        const calls = line.segments.flatMap((s) => s.tool_calls ?? []);
        expect(calls.map((c) => [c.name, c.arguments, c.result])).toEqual([
          ["calculator", { expression: "23*19" }, "437"],
          ["calculator", { expression: "437+1" }, "438"],
        ]);
        expect(exchanges).toHaveLength(3);

        // The prefix invariant: each call's ids are the previous call's ids, its output, and
        // exactly the tool segment appended after it.
        const tools = line.segments.filter((s) => s.kind === "tool");
        for (let k = 1; k < exchanges.length; k++) {
          const prev = exchanges[k - 1];
          const suffix = tools[k - 1];
          if (!prev || !suffix) throw new Error("missing exchange");
          expect(exchanges[k]?.inputIds).toEqual([
            ...prev.inputIds,
            ...prev.turn.outputIds,
            ...line.token_ids.slice(suffix.start, suffix.end),
          ]);
        }
        const last = exchanges.at(-1);
        expect(line.token_ids).toEqual([
          ...(last?.inputIds ?? []),
          ...(last?.turn.outputIds ?? []),
        ]);
        // Every model turn ended with one of the family's own stop tokens.
        const stops = family.stopTokens.map((t) => t.id);
        for (const e of exchanges) expect(stops).toContain(e.turn.outputIds.at(-1));

        // The template's own rendering of the conversation, from the recorded turns.
        const tokenizer = services.tokenizer;
        const messages: ChatTemplateMessage[] = [
          { role: "system", content: "Use the calculator for arithmetic." },
          { role: "user", content: "What is 23*19 and then 437+1?" },
        ];
        const keepsStop = id === "gptoss";
        exchanges.forEach((e, k) => {
          const ids = keepsStop ? e.turn.outputIds : e.turn.outputIds.slice(0, -1);
          messages.push({ role: "assistant", content: tokenizer.decode(ids) });
          const call = calls[k];
          if (call) messages.push({ role: "tool", name: call.name, content: call.result ?? "" });
        });
        const calculator = services.registry.get("calculator");
        if (!calculator) throw new Error("no calculator tool");
        const rendered = tokenizer.applyChatTemplate(messages, {
          tools: [toToolSchema(calculator)],
        });
        const decoded = tokenizer.decode(line.token_ids);
        const rewrite = REWRITES[id];
        if (!rewrite) throw new Error(`no expectation for ${id}`);
        expect(rendered).toBe(rewrite.expected(decoded));
        expect(rendered === decoded || rewrite.rules.length > 0 || id === "qwen3").toBe(true);
        for (const rule of rewrite.rules) expect(family.rules.map((r) => r.id)).toContain(rule);
      } finally {
        await services.close();
      }
    }, 120_000);
  },
);

/** What each tool-less family's template adds to a two-turn chat's rendering, by rule id. */
const TOOL_LESS: Record<string, { rule?: string; expected: (decoded: string) => string }> = {
  llama3: {
    rule: "llama3.always-generation-prompt",
    expected: (decoded) => `${decoded}<|start_header_id|>assistant<|end_header_id|>\n\n`,
  },
  gemma3: { expected: (decoded) => `${decoded}\n` },
};

describe.each(["llama3", "gemma3"] as const)("a tool-less multi-turn episode on %s", (id) => {
  it("appends only the user's reply between turns; the ids decode to the template's rendering", async () => {
    const family = familyById(id);
    expect(family?.toolCalls).toBeNull();
    const sim = await createSimApp({ policy: "calculator", tokenizer: id });
    const tokenizer = sim.tokenizer;
    const questions = ["What is 23*19?", "And 2+2?"];
    const messages: ChatTemplateMessage[] = [{ role: "user", content: questions[0] ?? "" }];
    let ids = initialPrompt(tokenizer, { user: questions[0] ?? "" }).tokenIds;
    for (let turn = 0; turn < questions.length; turn++) {
      const answer = generateResponseSchema.parse(
        (
          await callSim(sim, "POST", "/generate", {
            input_ids: ids,
            sampling_params: { max_new_tokens: 200, temperature: 0 },
          })
        ).json,
      );
      const sent = ids;
      ids = [...ids, ...answer.output_ids];
      expect(family?.stopTokens[0]?.id).toBe(answer.output_ids.at(-1));
      const reply = tokenizer.decode(answer.output_ids.slice(0, -1));
      expect(reply).toMatch(/cannot call tools/);
      messages.push({ role: "assistant", content: reply });
      const next = questions[turn + 1];
      if (next === undefined) break;
      messages.push({ role: "user", content: next });
      const suffix = toolResultSuffix(tokenizer, [{ role: "user", content: next }]);
      ids = [...ids, ...suffix.tokenIds];
      // The prefix invariant, as the next call will send it.
      expect(ids.slice(0, sent.length + answer.output_ids.length)).toEqual([
        ...sent,
        ...answer.output_ids,
      ]);
    }
    const rendered = tokenizer.applyChatTemplate(messages);
    const expectation = TOOL_LESS[id];
    if (!expectation) throw new Error(`no expectation for ${id}`);
    expect(rendered).toBe(expectation.expected(tokenizer.decode(ids)));
    if (expectation.rule) expect(family?.rules.map((r) => r.id)).toContain(expectation.rule);
  }, 120_000);
});
