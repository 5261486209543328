import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CANARY_PATH, hostileTorchFiles } from "../../test-support/hostileCorpus";
import { runCli } from "../../test-support/runCli";

// Every hostile `.pt` file of the corpus on the command line: exit 2 with its error, nothing run.

const dir = mkdtempSync(join(tmpdir(), "rollout-lens-hostile-pt-"));

describe("hostile .pt files on the command line", () => {
  for (const hostile of hostileTorchFiles()) {
    it(`${hostile.name}: validate, drift and mismatch exit 2 naming the problem`, async () => {
      rmSync(CANARY_PATH, { force: true });
      const path = join(dir, hostile.name);
      writeFileSync(path, hostile.bytes);
      for (const command of ["validate", "drift", "mismatch"]) {
        const { code, out } = await runCli([command, path]);
        expect(out).toContain(`${path}: cannot read: `);
        expect(out).toContain(hostile.expected);
        expect(code).toBe(2);
      }
      expect(existsSync(CANARY_PATH)).toBe(false);
    });
  }
});
