import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/emulator.global-setup.ts"],
    // Generous limits: a test may take 4× its quiet duration on a busy 2-core machine and still pass
    // (tests quiet under 15 s; longer ones set their own limit, at least 4× what they take quietly).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: one worker per core keeps CPU-heavy property tests from starving each other.
    maxWorkers: 2,
  },
});
