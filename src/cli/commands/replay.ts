/**
 * `keyspread replay`: recorded traffic (an access log) under the current key and under candidate
 * keys on a simulated cluster — what your traffic would do under a key you have not built yet.
 * The log is read twice, streaming (its time span, then the replay), so memory does not grow with it.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { Replay, type ReplayDesign, type ReplayResult } from "../../sim/replay/replay.js";
import { replayVerdict } from "../../sim/replay/replay-verdict.js";
import { formatDesignComparison, heatmapPanels } from "../../sim/results/report.js";
import { HOTTEST_CPU_LIMIT } from "../../sim/results/summary.js";
import { formatDuration, parseDuration } from "../../sim/scenario/duration.js";
import { scanAccessLog } from "../../viz/input/access-log.js";
import type { LineChart } from "../../viz/render/line-chart.js";
import { writeHeatmaps } from "../../viz/render/write-heatmaps.js";
import { guarded, parsePositiveInt, readSchemaFile } from "../shared/io.js";
import { fractionBar } from "../shared/progress.js";

interface ReplayOptions {
  log: string;
  schema: string;
  candidate: string[];
  nodes: number;
  storage: "ssd" | "hdd";
  sampleRate: number;
  step: string;
  format?: "jsonl" | "csv";
  out?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function sampleRate(value: string): number {
  const rate = Number(value);
  if (!(rate > 0 && rate <= 1))
    throw new Error(
      `--sample-rate ${JSON.stringify(value)}: expected a share in (0, 1], e.g. 0.01 for a 1 % sample`,
    );
  return rate;
}

/** Names for the designs: each schema's name, made distinct. */
async function designs(current: string, candidates: string[]): Promise<[ReplayDesign, ReplayDesign[]]> {
  const loaded = await Promise.all([current, ...candidates].map(readSchemaFile));
  const seen = new Map<string, number>();
  const named = loaded.map((schema) => {
    const base = schema.spec.name;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return { name: count === 1 ? base : `${base}-${count}`, schema };
  });
  return [named[0]!, named.slice(1)];
}

export function registerReplayCommands(program: Command): void {
  program
    .command("replay")
    .description(
      "replay recorded traffic (an access log) under the current key and candidate keys on a simulated cluster",
    )
    .requiredOption(
      "--log <file>",
      "access log: JSONL, or CSV with a header (ts,key,op[,bytes,latencyMs,node])",
    )
    .requiredOption("--schema <file>", "the current key schema: every logged key is decoded with it")
    .option("--candidate <file>", "a candidate key schema (repeat for more)", collect, [])
    .requiredOption("--nodes <n>", "nodes in the simulated cluster", parsePositiveInt)
    .addOption(new Option("--storage <type>", "node storage").choices(["ssd", "hdd"]).default("ssd"))
    .option("--sample-rate <share>", "share of operations the log recorded (0.01 for 1 %)", sampleRate, 1)
    .option("--step <duration>", "simulation step", "1s")
    .addOption(
      new Option("--format <format>", "log format (default: .csv is CSV, else JSONL)").choices([
        "jsonl",
        "csv",
      ]),
    )
    .option("--out <dir>", "also write results.json, comparison.txt and the heatmaps side by side here")
    .option("--json", 'print {"designs": [{"name", "summary"}], "verdict", …} as JSON')
    .action(guarded(replayCommand));
}

async function replayCommand(options: ReplayOptions): Promise<void> {
  if (options.candidate.length === 0) throw new Error("--candidate: give at least one candidate key schema");
  const [current, candidates] = await designs(options.schema, options.candidate);
  const result = await replayLog(options, current, candidates, parseDuration(options.step, "--step"));
  const verdict = replayVerdict(result.designs);
  const simulation = {
    scenario: `replay of ${options.log}`,
    durationS: result.designs[0]!.durationS,
    designs: result.designs,
  };
  const report = [
    ...replaySummary(options, result, simulation.durationS),
    "",
    formatDesignComparison(simulation),
    "",
    "Verdict:",
  ];
  process.stdout.write(
    options.json
      ? `${JSON.stringify(
          {
            designs: result.designs.map((design) => ({ name: design.design, summary: design.summary })),
            verdict,
            records: result.records,
            late: result.late,
            undecodable: result.undecodable,
          },
          null,
          2,
        )}\n`
      : `${[...report, ...verdict.lines.map((line) => `  ${line}`)].join("\n")}\n`,
  );
  if (options.out === undefined) return;
  const written = await writeReplayFiles(options.out, options.log, result, [current, ...candidates], {
    results: `${JSON.stringify({ ...simulation, designs: result.designs.map(({ loadSteps, ...design }) => design), verdict }, null, 2)}\n`,
    comparison: `${[...report, ...verdict.lines].join("\n")}\n`,
  });
  (options.json ? process.stderr : process.stdout).write(`\nwrote ${written.join(", ")}\n`);
}

/** How much the log held and what could not be replayed, in a few lines. */
function replaySummary(options: ReplayOptions, result: ReplayResult, durationS: number): string[] {
  return [
    `${options.log}: ${result.records.toLocaleString("en-US")} records over ${formatDuration(durationS)}` +
      (options.sampleRate < 1
        ? ` (a ${options.sampleRate * 100} % sample: each stands for ${Math.round(1 / options.sampleRate)} operations)`
        : ""),
    ...(result.late > 0
      ? [
          `${result.late.toLocaleString("en-US")} records came out of time order and counted in the step being replayed`,
        ]
      : []),
    ...undecodableLines(result),
  ];
}

/** results.json, comparison.txt, and the heatmaps side by side under a hottest-node chart; returns the paths. */
async function writeReplayFiles(
  out: string,
  log: string,
  result: ReplayResult,
  replayed: readonly ReplayDesign[],
  texts: { results: string; comparison: string },
): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const written = [join(out, "results.json"), join(out, "comparison.txt")];
  await writeFileAtomically(written[0]!, texts.results);
  await writeFileAtomically(written[1]!, texts.comparison);
  // Each design's rows named through its own schema.
  const panels = heatmapPanels(result.designs).map((panel, index) => ({
    ...panel,
    naming: replayed[index]!.schema,
  }));
  const heatmaps = await writeHeatmaps(panels, out, {
    title: `replay of ${log}: ${result.designs.map((design) => design.design).join(" vs ")}`,
    charts: [
      {
        title: "Hottest node CPU over time (before and after)",
        unit: "percent",
        limit: { value: HOTTEST_CPU_LIMIT, label: "Google: hottest ≤ 90 %" },
        series: result.designs.map((design) => ({
          name: design.design,
          points: design.timeline.map((point) => ({ t: point.t, value: point.hottestNodeCpu })),
        })),
      },
      hottestDifferenceChart(result.designs),
    ],
  });
  return [...written, ...heatmaps.designs.flatMap((design) => design.images), heatmaps.html];
}

async function replayLog(
  options: ReplayOptions,
  current: ReplayDesign,
  candidates: ReplayDesign[],
  stepS: number,
): Promise<ReplayResult> {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let records = 0;
  const bar = fractionBar("replaying, pass {pass}/2");
  const replay = await scanAccessLog(
    options.log,
    {
      ...(options.format ? { format: options.format } : {}),
      onProgress: (pass, bytes, total) => bar.update((pass - 1) * total + bytes, 2 * total, { pass }),
    },
    (record) => {
      first = Math.min(first, record.tsMs);
      last = Math.max(last, record.tsMs);
      records++;
    },
    () =>
      new Replay(current, candidates, {
        nodes: options.nodes,
        storage: options.storage,
        startMs: first,
        durationS: Math.max(stepS, (last - first) / 1000 + stepS),
        sampleRate: options.sampleRate,
        records,
        stepS,
      }),
  ).finally(() => bar.stop());
  return replay.finish();
}

/** The difference view: each candidate's hottest node minus the current key's, interval by interval (below zero: cooler). */
function hottestDifferenceChart(designs: ReplayResult["designs"]): LineChart {
  const [current, ...candidates] = designs;
  if (current === undefined) throw new Error("replay: expected the current design's result first");
  return {
    title: "Hottest node CPU, candidate minus current key (percentage points; below zero is cooler)",
    unit: "points",
    series: candidates.map((design) => ({
      name: `${design.design} − ${current.design}`,
      points: design.timeline.map((point, index) => ({
        t: point.t,
        value: point.hottestNodeCpu - (current.timeline[index]?.hottestNodeCpu ?? 0),
      })),
    })),
  };
}

function undecodableLines(result: ReplayResult): string[] {
  const { undecodable } = result;
  if (undecodable.count === 0) return [];
  return [
    `${undecodable.count.toLocaleString("en-US")} records the current schema cannot read were left out of every design:`,
    ...undecodable.reasons.map(
      (each) => `  ${each.count.toLocaleString("en-US")} × ${each.reason} (e.g. ${each.keys.join(", ")})`,
    ),
  ];
}
