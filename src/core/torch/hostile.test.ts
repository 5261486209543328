import { existsSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CANARY_PATH, hostileTorchFiles } from "../../../test-support/hostileTorch";
import { op, pickle, torchZip } from "../../../test-support/torchZip";
import { openTorchFile, plainValues } from "./torchFile";
import { TorchFileError } from "./zipEntries";

const fileOf = (bytes: Uint8Array) => ({
  byteLength: bytes.length,
  slice: (start: number, end = bytes.length) => bytes.slice(start, end).buffer,
});

describe("hostile torch.save files", () => {
  for (const hostile of hostileTorchFiles()) {
    it(`${hostile.name}: a clear error, nothing run`, async () => {
      rmSync(CANARY_PATH, { force: true });
      const before = process.memoryUsage().arrayBuffers;
      const read = async () => {
        const torch = await openTorchFile(fileOf(hostile.bytes));
        return plainValues(torch, torch.root);
      };
      const error = await read().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TorchFileError);
      expect((error as Error).message).toContain(hostile.expected);
      expect(existsSync(CANARY_PATH)).toBe(false);
      // Nothing near a declared 2 GB was allocated.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
    });
  }
});

describe("dict keys that name an object's own machinery", () => {
  it("__proto__, constructor and toString stay data keys; no prototype is touched", async () => {
    const bytes = torchZip(
      pickle(
        op.proto,
        op.emptyDict,
        op.mark,
        op.str("__proto__"),
        op.emptyDict,
        op.mark,
        op.str("polluted"),
        op.int(1),
        op.setitems,
        op.str("constructor"),
        op.int(2),
        op.str("toString"),
        op.int(3),
        op.setitems,
        op.stop,
      ),
    );
    const torch = await openTorchFile(fileOf(bytes));
    const root = (await plainValues(torch, torch.root)) as Record<string, unknown>;
    expect(Object.keys(root)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getOwnPropertyDescriptor(root, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(Object.getPrototypeOf(root)).toBe(Object.prototype);
    expect(root.constructor).toBe(2);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
