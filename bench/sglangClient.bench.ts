import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { SglangClient } from "../server/sglang/sglangClient";
import { generateReply, startStub } from "../test-support/sglang/stubUpstream";

// Client overhead against a local instant upstream, each figure divided by a bare undici baseline
// measured in the same run: targets overhead <= 1.2, concurrent throughput >= 0.8.
const PROMPT = Array.from({ length: 512 }, (_, i) => 1000 + i);
const SAMPLING = { max_new_tokens: 16, temperature: 0.7, top_p: 0.95 };
const REPLY = JSON.stringify(
  generateReply(
    "bench",
    Array.from({ length: 16 }, (_, i) => 2000 + i),
  ),
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function collectGarbage(): void {
  // Only with node --expose-gc; without it memory figures include uncollected garbage.
  const gc: unknown = Reflect.get(globalThis, "gc");
  if (typeof gc === "function") gc();
}

export default async function benchSglangClient(): Promise<void> {
  const stub = await startStub((_req, res) => {
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(REPLY),
    });
    res.end(REPLY);
  }, false);
  const client = new SglangClient({ upstreams: stub.url, health: { intervalMs: 0 } });
  const bare = new Pool(stub.url, { connections: 1024 });
  const bareCall = async () => {
    const body = JSON.stringify({
      input_ids: PROMPT,
      sampling_params: SAMPLING,
      return_logprob: true,
      logprob_start_len: PROMPT.length - 1,
      rid: "rlaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      stream: false,
    });
    const res = await bare.request({
      method: "POST",
      path: "/generate",
      headers: { "content-type": "application/json" },
      body,
    });
    return res.body.json();
  };
  const clientCall = () => client.generate({ inputIds: PROMPT, samplingParams: SAMPLING });

  // 1. Sequential latency. Both paths are JIT-warm first (the first ~1,000 calls of either run
  // 2-3x slower), then measured in alternating blocks so machine noise hits both sides alike.
  for (let i = 0; i < 2000; i++) await bareCall();
  for (let i = 0; i < 2000; i++) await clientCall();
  const bareTimes: number[] = [];
  const clientTimes: number[] = [];
  for (let block = 0; block < 10; block++) {
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      await bareCall();
      bareTimes.push(performance.now() - t0);
    }
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      await clientCall();
      clientTimes.push(performance.now() - t0);
    }
  }
  const bareMedian = median(bareTimes);
  const clientMedian = median(clientTimes);
  console.log(
    `sequential median: bare undici ${(bareMedian * 1000).toFixed(0)} µs, generate() ${(clientMedian * 1000).toFixed(0)} µs, overhead ratio ${(clientMedian / bareMedian).toFixed(2)} (target <= 1.2)`,
  );

  // 2. 256 concurrent requests, in alternating rounds; throughput in requests per second.
  const round = async (call: () => Promise<unknown>) => {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 256 }, call));
    return performance.now() - t0;
  };
  for (let r = 0; r < 5; r++) {
    await round(bareCall);
    await round(clientCall);
  }
  let bareMs = 0;
  let clientMs = 0;
  const rounds = 40;
  for (let r = 0; r < rounds; r++) {
    bareMs += await round(bareCall);
    clientMs += await round(clientCall);
  }
  const bareRps = (rounds * 256) / (bareMs / 1000);
  const clientRps = (rounds * 256) / (clientMs / 1000);
  console.log(
    `256 concurrent: bare ${bareRps.toFixed(0)} req/s, client ${clientRps.toFixed(0)} req/s, throughput ratio ${(clientRps / bareRps).toFixed(2)} (target >= 0.8)`,
  );

  // 3. Memory over 10,000 requests (256 at a time).
  collectGarbage();
  const before = process.memoryUsage();
  for (let done = 0; done < 10_000; done += 256) {
    await Promise.all(Array.from({ length: Math.min(256, 10_000 - done) }, clientCall));
  }
  collectGarbage();
  const after = process.memoryUsage();
  console.log(
    `memory over 10,000 requests: heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} (ratio ${(after.heapUsed / before.heapUsed).toFixed(2)}), rss ${mb(before.rss)} → ${mb(after.rss)} (ratio ${(after.rss / before.rss).toFixed(2)})${Reflect.get(globalThis, "gc") ? "" : " [no --expose-gc: figures include garbage]"}`,
  );

  await client.close();
  await bare.close();
  await stub.close();
}
