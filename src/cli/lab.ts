/**
 * `keyspread lab`: the main job. Simulates every candidate key design of a scenario (by default
 * seed 003's fleet), writes the comparison and heatmaps, then writes and reads a sample of the
 * scenario's rows through the library on the embedded store, and prints both.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { alignColumns } from "../format/columns.js";
import { checkDesign, type DesignCheck } from "../lab/library-check.js";
import { parseDuration } from "../sim/duration.js";
import { formatComparison } from "../sim/report.js";
import { openStore } from "../store/open.js";
import { guarded, parsePositiveInt, write } from "./io.js";
import { fractionBar } from "./progress.js";
import { readScenarioFile, simulateWithProgress, writeSimulationOutputs } from "./simulate.js";

const FLEET_SCENARIO = fileURLToPath(new URL("../../examples/fleet-hotspot.yaml", import.meta.url));

interface LabOptions {
  scenario: string;
  duration?: string;
  out: string;
  rows: number;
}

export function registerLabCommands(program: Command): void {
  program
    .command("lab")
    .description(
      "simulate every key design of a scenario (default: seed 003's fleet), draw the heatmaps, and write/read a sample through the library on the embedded store",
    )
    .option("--scenario <file>", "scenario file", FLEET_SCENARIO)
    .option("--duration <duration>", "simulated time, e.g. 30m or 3h (default: the scenario's)")
    .option("--out <dir>", "where results, heatmaps and the sample tables go", "./keyspread-lab")
    .option("--rows <n>", "sample rows per design written through the library", parsePositiveInt, 20_000)
    .action(
      guarded(async (options: LabOptions) => {
        const scenario = await readScenarioFile(options.scenario);
        const durationS =
          options.duration === undefined ? undefined : parseDuration(options.duration, "--duration");
        const { result } = simulateWithProgress(scenario, durationS === undefined ? {} : { durationS });
        const comparison = formatComparison(result);
        const { written, findings } = await writeSimulationOutputs(result, comparison, options.out);

        const directory = join(options.out, "tables");
        await rm(directory, { recursive: true, force: true });
        const checks: DesignCheck[] = [];
        const bar = fractionBar("library check: {name}");
        for (const [index, design] of scenario.designs.entries()) {
          bar.update(index, scenario.designs.length, { name: design.name });
          const store = await openStore("embedded", { table: design.name, directory });
          try {
            checks.push(await checkDesign(scenario, design.name, store, { rows: options.rows }));
          } finally {
            await store.close();
          }
        }
        bar.stop();

        await write(
          [
            `keyspread lab — ${scenario.name}${scenario.description ? `: ${scenario.description}` : ""}`,
            "",
            comparison,
            "",
            findings,
            "",
            `Through the library on the embedded store (${options.rows.toLocaleString("en")} sample rows of distinct entities per design, plus the entities read back):`,
            formatChecks(checks),
            "",
            `Wrote ${written.join(", ")}`,
            `Sample tables in ${directory}`,
            "",
          ].join("\n"),
        );
      }),
    );
}

function formatChecks(checks: DesignCheck[]): string {
  const header = [
    "design",
    "buckets",
    "rows",
    "write rows/s",
    "bucket max/mean",
    "latest-N",
    "fan-out",
    "ms/read",
    "correct",
  ];
  const rows = checks.map((check) => {
    const latest = check.latest;
    const reads =
      "unavailable" in latest
        ? [`n/a (${latest.unavailable})`, "", "", ""]
        : [
            `latest-${latest.n} × ${latest.entities}`,
            String(latest.fanout),
            latest.meanMs.toFixed(2),
            latest.correct ? "yes" : "NO",
          ];
    return [
      check.design,
      String(check.buckets),
      String(check.rowsWritten),
      Math.round(check.writeRowsPerS).toLocaleString("en"),
      check.bucketSkew.toFixed(2),
      ...reads,
    ];
  });
  return alignColumns([header, ...rows]).join("\n");
}
