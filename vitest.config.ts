import { defineConfig } from "vitest/config";

/**
 * The simulator, advisor and lab-model suites, and the CLI commands that run them (lab, advise,
 * replay, simulate: their time is the simulation's): pure computation, over half the suite's test
 * time. They touch neither the Node APIs that changed nor the Bigtable client, so scripts/test.sh
 * runs them on the first Node only; the CLI's own parsing, files and exit codes run on both through
 * the other commands' tests. So do the suites whose time is DuckDB's over keys they make (the
 * BigQuery views' decoding, run as DuckDB SQL) and the lab run on each of diagnose's planted
 * problems (their Bigtable calls are the ones diagnose's other suites make on both).
 */
const LAB = [
  "src/sim/**/*.test.ts",
  "src/advise/**/*.test.ts",
  "src/lab/**/*.test.ts",
  "src/cli/commands/lab.test.ts",
  "src/cli/commands/advise.test.ts",
  "src/cli/commands/replay.test.ts",
  "src/cli/commands/simulate.test.ts",
  "test/fidelity.test.ts",
  "test/lab-checks.test.ts",
  "test/multi-cluster-checks.test.ts",
  "src/bigquery/*.duckdb.test.ts",
  "src/diagnose/planted-problems.test.ts",
  // Several keyspread processes on one emulator table (replicas under load, backfill tasks killed
  // and restarted): minutes of wall time each; the client calls they make are the store suites'
  // calls, which run on both.
  "src/cli/commands/serve-replicas.test.ts",
  "src/cli/commands/migrate-tasks.test.ts",
  "src/cli/commands/loadtest.test.ts",
  "src/cli/commands/live-migration-replicas.test.ts",
  // The studio runs the lab's judgement (in Node, and in Chromium's worker): the simulation's time.
  "src/studio/studio-run.test.ts",
  "src/studio/studio.browser.test.ts",
];
/**
 * Test files that replace a module with `vi.mock`: each needs a module graph of its own, or a module
 * an earlier file in the same worker loaded unmocked would stay unmocked (and the mock could leak).
 */
const MOCKED = [
  "src/io/write-file-atomically.test.ts",
  // The disk under the write-ahead log fails on demand (`wal/faulty-disk.testsuite.ts`).
  "src/serve/http/hostile-clients.test.ts",
  "src/serve/ingest/ingest-pipeline.test.ts",
];

export default defineConfig({
  test: {
    globalSetup: ["test/temp-directory.global-setup.ts", "test/emulator.global-setup.ts"],
    // Generous limits: a test may take 4× its quiet duration on a busy 2-core machine and still pass
    // (tests quiet under 15 s; longer ones set their own limit, at least 4× what they take quietly).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: one worker per core keeps CPU-heavy property tests from starving each other.
    maxWorkers: 2,
    // Files of one project share a worker's module graph (no file mutates what another imports): a
    // fresh graph per file cost ~0.25 s of CPU each, ~70 s over both runs of the suite. Vitest starts
    // projects in name order, so "lab" (the longest files) starts first.
    projects: [
      { extends: true, test: { name: "lab", include: LAB, isolate: false } },
      {
        extends: true,
        test: {
          name: "library",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...LAB, ...MOCKED],
          isolate: false,
        },
      },
      { extends: true, test: { name: "mocked", include: MOCKED } },
    ],
  },
});
