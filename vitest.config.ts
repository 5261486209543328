import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "server/**/*.test.ts", "e2e/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    // Compact tokenizers derived by tests (docs/drift.md) go to a temp folder, not the user's cache.
    env: { ROLLOUT_LENS_CACHE_DIR: join(tmpdir(), "rollout-lens-test-cache") },
  },
});
