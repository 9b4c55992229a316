#!/usr/bin/env node
/** The `keyspread` command: parses arguments and hands off to one module per command group. */
import { createRequire } from "node:module";
import { Command } from "commander";
import { registerAdviseCommands } from "./advise.js";
import { registerExportCommands } from "./export.js";
import { registerHeatmapCommands } from "./heatmap.js";
import { registerKeysCommands } from "./keys.js";
import { registerLabCommands } from "./lab.js";
import { registerMigrateCommands } from "./migrate.js";
import { registerReplayCommands } from "./replay.js";
import { registerServeCommands } from "./serve.js";
import { registerSimulateCommands } from "./simulate.js";
import { registerTableCommands } from "./table.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const program = new Command()
  .name("keyspread")
  .version(version)
  .description("Hotspot-proof Cloud Bigtable row keys: schemas, salted tables and a hotspot lab.")
  .showHelpAfterError();

// A reader that stops early (`| head`) closes the pipe: that is the end of the output, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

// Each command group registers itself here (one line each).
registerKeysCommands(program);
registerHeatmapCommands(program);
registerTableCommands(program);
registerSimulateCommands(program);
registerReplayCommands(program);
registerMigrateCommands(program);
registerExportCommands(program);
registerServeCommands(program);
registerLabCommands(program);
registerAdviseCommands(program);

await program.parseAsync(process.argv);
