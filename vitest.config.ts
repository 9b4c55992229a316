import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/emulator.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: one worker per core keeps CPU-heavy property tests from starving each other.
    maxWorkers: 2,
  },
});
