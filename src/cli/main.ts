#!/usr/bin/env node
/**
 * The `keyspread` command: parses arguments and hands off to one module per command group. Only
 * the group named on the command line is loaded (a cold start pays for what it runs: `keys encode`
 * never loads gRPC, LevelDB or the simulator); help and unknown commands load every group.
 */
import { createRequire } from "node:module";
import { Command } from "commander";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const program = new Command()
  .name("keyspread")
  .version(version)
  .description("Hotspot-proof Cloud Bigtable row keys: schemas, salted tables and a hotspot lab.")
  // One line after a usage error (commander's own suggests the flag meant), not the whole help.
  .showHelpAfterError("(add --help for the command's options)");

// A reader that stops early (`| head`) closes the pipe: that is the end of the output, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

type Register = (program: Command) => void;

// Each command group, by the name it registers (one line each).
const COMMAND_GROUPS: Record<string, () => Promise<Register>> = {
  keys: async () => (await import("./commands/keys.js")).registerKeysCommands,
  heatmap: async () => (await import("./commands/heatmap.js")).registerHeatmapCommands,
  table: async () => (await import("./commands/table.js")).registerTableCommands,
  simulate: async () => (await import("./commands/simulate.js")).registerSimulateCommands,
  replay: async () => (await import("./commands/replay.js")).registerReplayCommands,
  migrate: async () => (await import("./commands/migrate.js")).registerMigrateCommands,
  export: async () => (await import("./commands/export.js")).registerExportCommands,
  bigquery: async () => (await import("./commands/bigquery.js")).registerBigQueryCommands,
  serve: async () => (await import("./commands/serve.js")).registerServeCommands,
  lab: async () => (await import("./commands/lab.js")).registerLabCommands,
  advise: async () => (await import("./commands/advise.js")).registerAdviseCommands,
  examples: async () => (await import("./commands/examples.js")).registerExamplesCommands,
  diagnose: async () => (await import("./commands/diagnose.js")).registerDiagnoseCommands,
  loadtest: async () => (await import("./commands/loadtest.js")).registerLoadtestCommands,
  studio: async () => (await import("./commands/studio.js")).registerStudioCommands,
};

const named = process.argv[2];
const groups =
  named !== undefined && Object.hasOwn(COMMAND_GROUPS, named)
    ? [COMMAND_GROUPS[named]!]
    : Object.values(COMMAND_GROUPS);
for (const register of await Promise.all(groups.map((load) => load()))) register(program);

await program.parseAsync(process.argv);
