// Child process of bench/rangesUnderEpisodes.bench.ts: keeps N streaming episodes in flight on the
// server at BASE, each watched over its event stream as the app does, so the bench's own process
// only measures range reads. Prints "streaming" once started. Lines on stdin: "stats" prints
// {"finished","deltas"} so far as JSON; "stop" aborts the running episodes, prints "stopped" and
// exits.
import { createInterface } from "node:readline";

const [base = "", countArg = "32"] = process.argv.slice(2);
const EPISODES = Number(countArg);

let isStopped = false;
let finished = 0;
let deltas = 0;
const running = new Set<string>();

async function one(): Promise<void> {
  while (!isStopped) {
    const res = await fetch(`${base}/api/episodes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        prompt: "Tell me a long story.",
        policy: "long-winded",
        tools: [],
        stream: true,
        sampling_params: { max_new_tokens: 1500, ignore_eos: true },
      }),
    });
    if (res.status !== 201)
      throw new Error(`POST /api/episodes: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    running.add(id);
    const events = await fetch(`${base}/api/episodes/${id}/events`);
    const reader = events.body?.getReader();
    const decoder = new TextDecoder();
    for (let r = await reader?.read(); r && !r.done; r = await reader?.read()) {
      deltas += decoder.decode(r.value).split('"type":"delta"').length - 1;
    }
    running.delete(id);
    finished++;
  }
}

const all = Promise.all(Array.from({ length: EPISODES }, one));
process.stdout.write("streaming\n");
createInterface({ input: process.stdin }).on("line", async (line) => {
  if (line === "stats") process.stdout.write(`${JSON.stringify({ finished, deltas })}\n`);
  if (line === "stop") {
    isStopped = true;
    const abort = (id: string) => fetch(`${base}/api/episodes/${id}/abort`, { method: "POST" });
    await Promise.all([...running].map(abort));
    await all;
    process.stdout.write("stopped\n");
    process.exit(0);
  }
});
