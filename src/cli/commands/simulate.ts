/**
 * `keyspread simulate`: replay a scenario's workload under each of its key designs and print the
 * comparison (table or JSON); `--out DIR` also writes the full results and a heatmap per design.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { compileSchema } from "../../keys/schema.js";
import type { KeySchema } from "../../keys/types.js";
import { formatDesignComparison, heatmapPanels } from "../../sim/results/report.js";
import { type JsonOptions, simulationResultToJson } from "../../sim/results/result-json.js";
import type { SimulationResult } from "../../sim/results/results.js";
import { type SensitivityResult, simulateSensitivity } from "../../sim/results/sensitivity.js";
import {
  type SimulationMode,
  type SimulateOptions as SimulatorOptions,
  simulateScenario,
} from "../../sim/results/simulate.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { findingSummary } from "../../viz/patterns/finding-text.js";
import { writeHeatmaps } from "../../viz/render/write-heatmaps.js";
import { guarded } from "../shared/io.js";
import { simulationQueueBar } from "../shared/progress.js";
import { readScenarioFile } from "../shared/scenario-file.js";

interface SimulateOptions {
  design?: string;
  duration?: string;
  mode: SimulationMode;
  sensitivity?: boolean;
  json?: boolean;
  series?: boolean;
  out?: string;
}

/**
 * Runs the simulator with a progress bar on a TTY; with `sensitivity`, each design also at the
 * pessimistic and optimistic ends of the model's constants.
 */
export function simulateWithProgress(
  scenario: Scenario,
  options: Omit<SimulatorOptions, "onProgress" | "modelEnd"> & { sensitivity?: boolean },
): { result: SimulationResult; sensitivity?: SensitivityResult["designs"] } {
  const bar = simulationQueueBar("simulating");
  const { sensitivity, ...simulatorOptions } = options;
  const run = {
    ...simulatorOptions,
    onProgress: (progress: Parameters<NonNullable<SimulatorOptions["onProgress"]>>[0]) =>
      bar.update({
        ...progress,
        name: progress.design,
        index: progress.designIndex,
        count: progress.designCount,
      }),
  };
  try {
    if (!sensitivity) return { result: simulateScenario(scenario, run) };
    const ranged = simulateSensitivity(scenario, run);
    return { result: ranged.result, sensitivity: ranged.designs };
  } finally {
    bar.stop();
  }
}

/**
 * Writes results.json (with per-tablet load), comparison.txt and the heatmaps; returns the paths
 * and, per design, what its heatmap shows in words.
 */
export async function writeSimulationOutputs(
  result: SimulationResult,
  comparison: string,
  outDir: string,
  json: JsonOptions = {},
  /** The designs' key schemas by name: their heatmap rows are named by bucket and fields. */
  schemas: ReadonlyMap<string, KeySchema> = new Map(),
): Promise<{ written: string[]; findings: string }> {
  await mkdir(outDir, { recursive: true });
  const resultsPath = join(outDir, "results.json");
  await writeFileAtomically(resultsPath, simulationResultToJson(result, json));
  await writeFileAtomically(join(outDir, "comparison.txt"), `${comparison}\n`);
  const heatmaps = await writeHeatmaps(
    heatmapPanels(result.designs).map((panel) => {
      const naming = schemas.get(panel.name);
      return naming ? { ...panel, naming } : panel;
    }),
    outDir,
  );
  const findings = heatmaps.designs
    .map(({ name, patterns }) =>
      [
        `  ${name}:`,
        ...(patterns.length > 0 ? patterns.map((p) => `    ${findingSummary(p)}`) : ["    no pattern found"]),
      ].join("\n"),
    )
    .join("\n");
  return {
    written: [
      resultsPath,
      join(outDir, "comparison.txt"),
      ...heatmaps.designs.flatMap((d) => d.images),
      heatmaps.html,
    ],
    findings: `What the heatmaps show:\n${findings}`,
  };
}

export function registerSimulateCommands(program: Command): void {
  program
    .command("simulate")
    .description("replay a scenario's workload under each of its key designs on a simulated cluster")
    .argument("<scenario>", "scenario file (.yaml or .json), e.g. examples/fleet-hotspot.yaml")
    .option("--design <name>", "run only this design")
    .option("--duration <duration>", "simulated time, e.g. 30m or 3h (default: the scenario's)")
    .addOption(
      new Option("--mode <mode>", "fast: rates over the key space; exact: every operation (small runs)")
        .choices(["fast", "exact"])
        .default("fast"),
    )
    .option(
      "--sensitivity",
      "also run every design with the model's constants at their pessimistic and optimistic ends, and show each figure as a range",
    )
    .option("--json", "print the results as JSON (summaries; add --series for time series)")
    .option("--series", "include each design's time series in the JSON and results.json")
    .option("--out <dir>", "also write results.json, comparison.txt and a key-space heatmap per design here")
    .action(
      guarded(async (file: string, options: SimulateOptions) => {
        const scenario = await readScenarioFile(file);
        const durationS =
          options.duration === undefined ? undefined : parseDuration(options.duration, "--duration");
        const { result, sensitivity } = simulateWithProgress(scenario, {
          mode: options.mode,
          sensitivity: options.sensitivity ?? false,
          ...(options.design === undefined ? {} : { design: options.design }),
          ...(durationS === undefined ? {} : { durationS }),
        });
        const comparison = formatDesignComparison(result, sensitivity);
        const json = { series: options.series ?? false, ...(sensitivity ? { sensitivity } : {}) };
        process.stdout.write(options.json ? `${simulationResultToJson(result, json)}\n` : `${comparison}\n`);
        if (options.out === undefined) return;
        const schemas = new Map(
          scenario.designs.map((design) => [design.name, compileSchema(design.schema)]),
        );
        const { written, findings } = await writeSimulationOutputs(
          result,
          comparison,
          options.out,
          json,
          schemas,
        );
        (options.json ? process.stderr : process.stdout).write(
          `\n${findings}\n\nwrote ${written.join(", ")}\n`,
        );
      }),
    );
}
