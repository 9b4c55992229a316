/**
 * `keyspread lab`: the main job. Judges every key design of a scenario (by default the fleet
 * incident) with the advisor's rules, at the model's defaults and at both ends of its constants;
 * writes the reports, results and heatmaps; writes and reads a sample of the scenario's rows
 * through the library on the embedded store; and prints a summary that fits 120 columns.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import type { LabVerdict } from "../../lab/judge.js";
import { labHeatmapDesigns, labHeatmapHeading, labResultsJson } from "../../lab/lab-files.js";
import { labReport } from "../../lab/lab-report.js";
import { checkDesign, type DesignCheck } from "../../lab/library-check.js";
import { rekeyLines, rekeySizing } from "../../lab/rekey-sizing.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { openStore } from "../../store/open/open.js";
import { writeHeatmaps } from "../../viz/render/write-heatmaps.js";
import { writeAdviceFiles } from "../shared/advice-files.js";
import { type ApplyCliOptions, emitPlan, withApplyOptions, writeApplyFiles } from "../shared/apply-files.js";
import { guarded, parseBucketList, parseGrowth, parsePositiveInt, write } from "../shared/io.js";
import { judgeWithProgress } from "../shared/judge-progress.js";
import { fractionBar } from "../shared/progress.js";
import { readScenarioFile, scenarioFileOf } from "../shared/scenario-file.js";

const FLEET_SCENARIO = fileURLToPath(new URL("../../../examples/fleet-hotspot.yaml", import.meta.url));

interface LabOptions extends ApplyCliOptions {
  /** Deprecated: the file is the first argument. */
  scenario?: string;
  duration?: string;
  out: string;
  rows: number;
  wide?: boolean;
  sensitivity: boolean;
  growth?: number;
  series?: boolean;
  buckets?: number[];
}

export function registerLabCommands(program: Command): void {
  const lab = program
    .command("lab")
    .description(
      "judge every key design of a scenario (default: the fleet incident) as the advisor does, at the model's defaults and at both ends of its constants; write the reports and heatmaps; write and read a sample through the library on the embedded store",
    )
    .argument("[scenario]", "scenario file (.yaml or .json; default: the fleet incident)")
    .option("--scenario <file>", "deprecated: give the scenario file as the first argument")
    .option("--duration <duration>", "simulated time, e.g. 30m or 3h (default: the scenario's)")
    .option("--out <dir>", "where the reports, results, heatmaps and sample tables go", "./keyspread-lab")
    .option("--rows <n>", "sample rows per design written through the library", parsePositiveInt, 20_000)
    .option("--wide", "print the advisor's full table (wider than 120 columns)")
    .option(
      "--growth <x>",
      "multiple of today's workload the sizing must still carry (default: the scenario's growth, else 1: Google's targets are the headroom for peaks)",
      parseGrowth,
    )
    .option(
      "--buckets <list>",
      "salt bucket counts the advisor tries, e.g. 16,24,64 (default: 2-4 × nodes and powers of two to 256)",
      parseBucketList,
    )
    .option("--no-sensitivity", "skip the reruns at the ends of the model's constants (no ranges)")
    .option("--series", "include each design's time series in results.json")
    .action(
      guarded(async (file: string | undefined, options: LabOptions) => {
        const scenario = await readScenarioFile(
          scenarioFileOf("lab", file, options.scenario) ?? FLEET_SCENARIO,
        );
        const durationS =
          options.duration === undefined ? undefined : parseDuration(options.duration, "--duration");
        const verdict = judgeWithProgress(scenario, {
          sensitivity: options.sensitivity,
          ...(options.growth === undefined ? {} : { growth: options.growth }),
          ...(durationS === undefined ? {} : { durationS }),
          ...(options.buckets === undefined ? {} : { buckets: options.buckets }),
        });
        const written = await writeLabFiles(verdict, options);
        written.push(...(await writeApplyFiles(verdict.advice, scenario, options.out, options)));
        const tables = join(options.out, "tables");
        const checks = await checkThroughLibrary(scenario, tables, options.rows);
        const rekey = rekeySizing(scenario, verdict.advice);
        if (rekey) {
          const migrationPath = join(options.out, "migration.json");
          await writeFileAtomically(migrationPath, `${JSON.stringify(rekey, null, 2)}\n`);
          written.push(migrationPath);
        }
        if (options.emit) return emitPlan(verdict.advice, scenario, { ...options, emit: options.emit });
        await write(
          [
            ...labReport(verdict, checks, {
              rows: options.rows,
              ...(options.wide ? { wide: true } : {}),
              ...(rekey ? { rekey: rekeyLines(rekey, verdict.advice.nodes) } : {}),
            }),
            "",
            `Wrote ${written.length} files to ${options.out}:`,
            ...written.map((path) => `  ${path}`),
            `Sample tables in ${tables}`,
            "",
          ].join("\n"),
        );
      }),
    );
  withApplyOptions(lab);
}

/**
 * The advisor's reports on the scenario's designs, the simulation summaries (with the ranges over
 * the model's ends) and a heatmap per design with its verdict; returns the paths written.
 */
async function writeLabFiles(verdict: LabVerdict, options: LabOptions): Promise<string[]> {
  const out = options.out;
  await mkdir(out, { recursive: true });
  const heatmaps = await writeHeatmaps(labHeatmapDesigns(verdict), out, labHeatmapHeading(verdict));
  const resultsPath = join(out, "results.json");
  await writeFileAtomically(resultsPath, labResultsJson(verdict, options.series ? { series: true } : {}));
  return [
    ...(await writeAdviceFiles(verdict.advice, out, { heatmaps })),
    resultsPath,
    heatmaps.html,
    ...heatmaps.designs.flatMap((design) => design.images),
  ];
}

/** Writes and reads a sample of every design's rows through SaltedTable on the embedded store. */
async function checkThroughLibrary(
  scenario: Scenario,
  directory: string,
  rows: number,
): Promise<DesignCheck[]> {
  await rm(directory, { recursive: true, force: true });
  const checks: DesignCheck[] = [];
  const bar = fractionBar("lab: library check {name}");
  try {
    for (const [index, design] of scenario.designs.entries()) {
      bar.update(index, scenario.designs.length, { name: design.name });
      // Bigtable's table ids (and the embedded store's) allow letters, digits, "_", "-" and ".".
      const table = design.name.replace(/[^A-Za-z0-9._-]+/g, "_");
      const store = await openStore("embedded", { table, directory });
      try {
        checks.push(await checkDesign(scenario, design.name, store, { rows }));
      } finally {
        await store.close();
      }
    }
  } finally {
    bar.stop();
  }
  return checks;
}
