// `rollout-lens mcp` as an agent meets it: spawn → the answer to `initialize` (start-up, whole
// process), then `get_tokens` of 2,000 tokens once the file is indexed (`describe_file` first).
// Called by startup.bench.ts on the installed package, beside bare Node in the same run.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

interface Session {
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string): void;
  close(): void;
}

function startSession(bin: string, args: readonly string[]): Session {
  const child = spawn(bin, [...args], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map<number, (value: unknown) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    waiting.get(message.id)?.(message.error ?? message.result);
    waiting.delete(message.id);
  });
  let next = 1;
  const send = (body: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...body })}\n`);
  return {
    request(method, params) {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        send({ id, method, params });
      });
    },
    notify: (method) => send({ method }),
    close: () => child.stdin.end(),
  };
}

const INIT = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "0" },
};

/** Seconds from spawn to the `initialize` answer. */
export async function mcpStartSeconds(bin: string, file: string): Promise<number> {
  const start = performance.now();
  const session = startSession(bin, ["mcp", file]);
  await session.request("initialize", INIT);
  const seconds = (performance.now() - start) / 1000;
  session.close();
  return seconds;
}

/** Milliseconds of each `get_tokens` (2,000 tokens of row 0) after the file is indexed. */
export async function mcpGetTokensMs(bin: string, file: string, runs: number): Promise<number[]> {
  const session = startSession(bin, ["mcp", file]);
  await session.request("initialize", INIT);
  session.notify("notifications/initialized");
  const call = (name: string, args: Record<string, unknown>) =>
    session.request("tools/call", { name, arguments: args });
  await call("describe_file", { file: "f1" });
  await call("get_tokens", { file: "f1", row: 0, count: 10 }); // loads the tokenizer
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const answer = (await call("get_tokens", { file: "f1", row: i % 2, count: 2000 })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    times.push(performance.now() - start);
    if (answer.isError) throw new Error(`get_tokens: ${answer.content[0]?.text}`);
  }
  session.close();
  return times;
}
