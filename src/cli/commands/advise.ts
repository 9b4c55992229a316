/**
 * `keyspread advise`: from a scenario file or a sample of real row keys, simulate candidate key
 * designs and recommend the simplest that meets Google's CPU guidance; print the report (Markdown)
 * or one JSON object, and with `--out DIR` write report.md, report.html, the recommended schema,
 * advice.json and the heatmaps.
 */
import { mkdir, readFile } from "node:fs/promises";
import { type Command, Option } from "commander";
import { type KeySampleFormat, parseKeyLines, splitKeySample } from "../../advise/infer/key-sample.js";
import { inferKeyStructure, type KeyStructure } from "../../advise/infer/key-structure.js";
import { parseWorkloadRates } from "../../advise/infer/rates.js";
import { type RealKey, realKeyOf } from "../../advise/infer/real-key.js";
import { scenarioFromSample } from "../../advise/infer/sample-scenario.js";
import {
  type Advice,
  type AdviseOptions,
  adviseScenario,
  candidateLabel,
} from "../../advise/judge/advise.js";
import { adviceToJson } from "../../advise/report/advice-json.js";
import { adviceMarkdown } from "../../advise/report/report-markdown.js";
import { headline, heatmapCandidates } from "../../advise/report/report-table.js";
import { headlineLines } from "../../advise/report/verdict-headline.js";
import { compileSchema } from "../../keys/index.js";
import type { SimulationMode } from "../../sim/results/simulate.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { writeHeatmaps } from "../../viz/render/write-heatmaps.js";
import { writeAdviceFiles } from "../shared/advice-files.js";
import { type ApplyCliOptions, emitPlan, withApplyOptions, writeApplyFiles } from "../shared/apply-files.js";
import { guarded, parseBucketList, parseGrowth, parsePositiveInt } from "../shared/io.js";
import { judgeWithProgress } from "../shared/judge-progress.js";
import { simulationQueueBar } from "../shared/progress.js";
import { readScenarioFile, scenarioFileOf } from "../shared/scenario-file.js";

interface AdviseCliOptions extends ApplyCliOptions {
  scenario?: string;
  keys?: string;
  rates?: string;
  nodes?: number;
  storage: "ssd" | "hdd";
  rowBytes?: number;
  entities?: number;
  keyFormat: KeySampleFormat;
  separator?: string;
  baseline?: string;
  duration?: string;
  mode: SimulationMode;
  buckets?: number[];
  batching: boolean;
  growth?: number;
  out?: string;
  json?: boolean;
}

const DEFAULT_DURATION = "30m";

/** `advise` exits with this when no design is recommended (nothing meets the targets, even on more nodes). */
export const EXIT_NO_RECOMMENDATION = 2;

const EXIT_CODES = `
Exit codes:
  0  a design is recommended (on the planned nodes, or on more nodes: the headline and
     advice.json's recommended.needsMoreNodes say so)
  1  bad input or an error (the message names it)
  ${EXIT_NO_RECOMMENDATION}  no design is recommended: nothing meets the targets at the stated growth, even on more
     nodes (the report says why each candidate loses)`;

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`${what} ${file}: ${(error as Error).message}`);
  }
}

async function scenarioFromKeyFile(
  keysFile: string,
  options: AdviseCliOptions,
  durationS: number,
): Promise<{ scenario: Scenario; structure: KeyStructure; realKey: RealKey }> {
  if (options.rates === undefined)
    throw new Error("--keys needs --rates, e.g. --rates writes=20000,latest-10=500,range-1d=5");
  const nodes = options.nodes;
  if (nodes === undefined) throw new Error("--keys needs --nodes N (the cluster's node count)");
  const sample = splitKeySample(
    parseKeyLines(await readText(keysFile, "key sample"), options.keyFormat),
    options.separator,
  );
  const structure = inferKeyStructure(sample);
  const { rowBytes, entities } = options;
  const scenario = scenarioFromSample(sample, structure, {
    rates: parseWorkloadRates(options.rates),
    nodes,
    storage: options.storage,
    durationS,
    ...(rowBytes === undefined ? {} : { rowBytes }),
    ...(entities === undefined ? {} : { entities }),
  });
  return { scenario, structure, realKey: realKeyOf(structure) };
}

export function registerAdviseCommands(program: Command): void {
  const advise = program
    .command("advise")
    .description(
      "simulate candidate key designs for a workload and recommend the simplest that meets the targets",
    )
    .argument(
      "[scenario]",
      "a scenario file (.yaml/.json, as for simulate and lab); its first design is the current key",
    )
    .option("--scenario <file>", "deprecated: give the scenario file as the first argument")
    .option("--keys <file>", "a sample of real row keys, one per line")
    .option("--rates <list>", "with --keys: writes=N,latest-<count>=N,range-<duration>=N,get=N (per second)")
    .option(
      "--nodes <n>",
      "nodes to plan for (required with --keys; default: the scenario's)",
      parsePositiveInt,
    )
    .addOption(
      new Option("--storage <kind>", "with --keys: node storage").choices(["ssd", "hdd"]).default("ssd"),
    )
    .option("--row-bytes <n>", "with --keys: bytes per row (default 1024)", parsePositiveInt)
    .option(
      "--entities <n>",
      "with --keys: distinct writers in the table (default: estimated from the sample)",
      parsePositiveInt,
    )
    .addOption(
      new Option("--key-format <format>", "with --keys: lines are text or hex")
        .choices(["text", "hex"])
        .default("text"),
    )
    .option("--separator <char>", "with --keys: the component separator (default: detected)")
    .option("--baseline <design>", "with a scenario: the design that is the current key (default: the first)")
    .option(
      "--duration <duration>",
      `simulated time per candidate (default: the scenario's; with --keys ${DEFAULT_DURATION})`,
    )
    .addOption(new Option("--mode <mode>", "simulator engine").choices(["fast", "exact"]).default("fast"))
    .option(
      "--buckets <list>",
      "salt bucket counts to try, e.g. 16,24,64 (default: 2-4 × nodes and powers of two to 256)",
      parseBucketList,
    )
    .option("--no-batching", "reads need every point at once: do not batch points per entity")
    .option(
      "--growth <x>",
      "multiple of today's workload the sizing must still carry (default: the scenario's growth, else 1: Google's targets are the headroom for peaks)",
      parseGrowth,
    )
    .option(
      "--out <dir>",
      "write report.md, report.html, recommended-schema.yaml, advice.json, main.tf, gcloud.sh and heatmaps here (stdout: the verdict and the paths)",
    )
    .option("--json", "print one JSON object (recommended design with schema and scores, every candidate)");
  withApplyOptions(advise)
    .addHelpText("after", EXIT_CODES)
    .action(
      guarded((file: string | undefined, options: AdviseCliOptions) =>
        adviseCommand({
          ...options,
          ...optionalScenario(scenarioFileOf("advise", file, options.scenario)),
        }),
      ),
    );
}

const optionalScenario = (scenario: string | undefined) => (scenario === undefined ? {} : { scenario });

async function adviseCommand(options: AdviseCliOptions): Promise<void> {
  const source = adviseSource(options);
  if (options.emit && options.json) throw new Error("give one of --emit and --json: both print to stdout");
  const durationS =
    options.duration === undefined ? undefined : parseDuration(options.duration, "--duration");
  const { buckets } = options;
  const choices = {
    mode: options.mode,
    batching: options.batching,
    ...(durationS === undefined ? {} : { durationS }),
    ...(buckets === undefined ? {} : { buckets }),
    ...(options.growth === undefined ? {} : { growth: options.growth }),
  };
  let advice: Advice;
  let scenario: Scenario;
  let structure: KeyStructure | undefined;
  if (source.kind === "scenario") {
    // The lab's judgement without its reruns at the model's ends: the same verdict as `lab`.
    scenario = await readScenarioFile(source.file);
    advice = judgeWithProgress(scenario, {
      ...choices,
      sensitivity: false,
      ...(options.nodes === undefined ? {} : { nodes: options.nodes }),
      ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
    }).advice;
  } else {
    const fromKeys = await scenarioFromKeyFile(
      source.file,
      options,
      durationS ?? parseDuration(DEFAULT_DURATION),
    );
    scenario = fromKeys.scenario;
    structure = fromKeys.structure;
    advice = adviseWithProgress(fromKeys.scenario, { ...choices, realKey: fromKeys.realKey });
  }
  if (!advice.recommended) process.exitCode = EXIT_NO_RECOMMENDATION;
  const written =
    options.out === undefined
      ? undefined
      : [
          ...(await writeAdviceOutputs(advice, options.out, structure)),
          ...(await writeApplyFiles(advice, scenario, options.out, options)),
        ];
  if (options.emit) return emitPlan(advice, scenario, { ...options, emit: options.emit });
  if (written === undefined) {
    process.stdout.write(
      options.json ? `${adviceToJson(advice)}\n` : adviceMarkdown(advice, structure ? { structure } : {}),
    );
    return;
  }
  // The report is in the files: stdout gets the verdict and where to read the rest.
  process.stdout.write(
    options.json
      ? `${adviceToJson(advice)}\n`
      : `${[...headlineLines(advice), "", headline(advice)].join("\n")}\n\nwrote:\n${written.map((path) => `  ${path}\n`).join("")}`,
  );
}

/** What to advise on: a scenario file or a key sample, exactly one. */
function adviseSource(options: AdviseCliOptions): { kind: "scenario" | "keys"; file: string } {
  const { scenario, keys } = options;
  if (scenario !== undefined && keys === undefined) return { kind: "scenario", file: scenario };
  if (keys !== undefined && scenario === undefined) return { kind: "keys", file: keys };
  throw new Error("give exactly one of a scenario FILE or --keys FILE");
}

function adviseWithProgress(scenario: Scenario, options: Omit<AdviseOptions, "onProgress">): Advice {
  const bar = simulationQueueBar("advising:");
  try {
    return adviseScenario(scenario, {
      ...options,
      onProgress: (progress) => bar.update({ ...progress, name: progress.candidate }),
    });
  } finally {
    bar.stop();
  }
}

/** The heatmaps of the designs worth seeing, then the reports that link them; returns the paths. */
async function writeAdviceOutputs(
  advice: Advice,
  out: string,
  structure: KeyStructure | undefined,
): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const shown = heatmapCandidates(advice);
  const heatmaps =
    shown.length === 0
      ? undefined
      : await writeHeatmaps(
          // Each panel's rows named through its own schema: decoded keys, never hex.
          shown.map((each) => ({
            name: candidateLabel(each, advice.nodes),
            steps: each.result.loadSteps,
            naming: compileSchema(each.candidate.design.schema),
          })),
          out,
        );
  const reports = await writeAdviceFiles(advice, out, {
    ...(structure ? { structure } : {}),
    ...(heatmaps ? { heatmaps } : {}),
  });
  return [
    ...reports,
    ...(heatmaps ? [...heatmaps.designs.flatMap((design) => design.images), heatmaps.html] : []),
  ];
}
