import { existsSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CANARY_PATH, hostileTorchFiles } from "../../../test-support/hostileTorch";
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
