import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchRange, retryWaitMs } from "./rangeFetch";

// The browser's range reads wait out a busy server (429 + Retry-After) and give other errors with
// the server's sentence.

const busy = (retryAfter?: string) =>
  new Response(JSON.stringify({ error: "16 byte-range reads are already in flight" }), {
    status: 429,
    headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
  });

afterEach(() => vi.unstubAllGlobals());

describe("fetchRange", () => {
  it("retries a 429 after its Retry-After, then returns the bytes", async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(busy("2"))
      .mockResolvedValueOnce(busy())
      .mockResolvedValueOnce(new Response(new Uint8Array([1, 2, 3])));
    vi.stubGlobal("fetch", fetchMock);
    const waits: number[] = [];
    const bytes = await fetchRange("/api/files/f1/range", "a.jsonl", 0, 3, {
      sleep: async (ms) => void waits.push(ms),
    });
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(waits).toEqual([2000, 1000]);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(fetchMock.mock.calls[0]?.[0]).toBe("/api/files/f1/range?start=0&end=3");
  });

  it("gives up after its budget, saying the server stayed busy", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => busy("5")),
    );
    const attempt = fetchRange("/r", "a.jsonl", 0, 3, { sleep: async () => {}, budgetMs: 12_000 });
    await expect(attempt).rejects.toThrow(
      /a.jsonl bytes 0-3: 429 16 byte-range reads .*still busy after 15 s/,
    );
  });

  it("does not retry a 413 and passes on the server's sentence", async () => {
    const fetchMock = vi.fn(
      async () =>
        new Response(JSON.stringify({ error: "a range may span at most 16 MiB" }), { status: 413 }),
    );
    vi.stubGlobal("fetch", fetchMock);
    await expect(fetchRange("/r", "a.jsonl", 0, 3)).rejects.toThrow(
      "413 a range may span at most 16 MiB",
    );
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("reads Retry-After in seconds, capped, 1 s when absent", () => {
    expect(retryWaitMs("0")).toBe(0);
    expect(retryWaitMs(null)).toBe(1000);
    expect(retryWaitMs("junk")).toBe(1000);
    expect(retryWaitMs("3600")).toBe(10_000);
  });
});
