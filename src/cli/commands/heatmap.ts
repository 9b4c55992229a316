/**
 * `keyspread heatmap`: a Key Visualizer-style heatmap of an access log (JSONL or CSV), written as
 * PNG, SVG or HTML, and the patterns it shows printed in words.
 */

import { mkdir } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { type Command, Option } from "commander";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { nameHotKeys } from "../../viz/hot-keys.js";
import type { HeatMatrix } from "../../viz/matrix/heat-matrix.js";
import { HEAT_METRICS, type HeatMetric } from "../../viz/matrix/heat-matrix.js";
import { readAccessLogMatrix } from "../../viz/matrix/log-matrix.js";
import { detectPatterns } from "../../viz/patterns/detect-patterns.js";
import type { FindingPlace, PatternFinding } from "../../viz/patterns/finding.js";
import { findingRule, findingSummary } from "../../viz/patterns/finding-text.js";
import type { ColorScaleKind } from "../../viz/render/color-scale.js";
import { renderHeatmapHtml } from "../../viz/render/html.js";
import { heatmapFormatOf, writeHeatmapFile } from "../../viz/render/write-heatmaps.js";
import { guarded, parsePositiveInt, readSchemaFile, wholeNumberIn } from "../shared/io.js";
import { fractionBar } from "../shared/progress.js";

interface HeatmapOptions {
  from: string[];
  out: string;
  metric: HeatMetric;
  schema?: string;
  separator?: string;
  format?: "jsonl" | "csv";
  rows: number;
  columns: number;
  scale?: ColorScaleKind;
  clip: number;
  width: number;
  height: number;
  title?: string;
  json?: boolean;
}

export function registerHeatmapCommands(program: Command): void {
  program
    .command("heatmap")
    .description(
      "Key Visualizer-style heatmap of an access log, plus the hotspot patterns it shows, in words",
    )
    .requiredOption(
      "--from <file>",
      "access log: JSONL, or CSV with a header (ts,key,op[,bytes,latencyMs,node]); repeat to compare logs side by side on one colour scale (HTML)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .requiredOption("--out <file>", "output: .png, .svg or .html")
    .addOption(new Option("--metric <metric>", "what colour shows").choices(HEAT_METRICS).default("ops"))
    .option("--schema <file>", "key schema (.json/.yaml): names rows by salt bucket and decoded fields")
    .option("--separator <char>", "segment separator for labels when there is no schema (default #)")
    .addOption(
      new Option("--format <format>", "log format (default: .csv is CSV, else JSONL)").choices([
        "jsonl",
        "csv",
      ]),
    )
    .option("--rows <n>", "key rows at most", parsePositiveInt, 1000)
    .option("--columns <n>", "time columns at most", parsePositiveInt, 240)
    .addOption(
      new Option("--scale <scale>", "colour scale (default: log; linear for cpu)").choices(["log", "linear"]),
    )
    .option("--clip <percentile>", "colour tops out at this percentile of cells", Number, 99)
    // Bounded: every pixel is held in memory (30000² took 9 GB).
    .option("--width <px>", "image width (200..16000)", wholeNumberIn(200, 16_000), 1000)
    .option("--height <px>", "image height (200..16000)", wholeNumberIn(200, 16_000), 600)
    .option("--title <text>", "title (default: metric and scale)")
    .option("--json", "print the patterns as JSON lines instead of sentences")
    .action(guarded(heatmapCommand));
}

interface LogPanel {
  name: string;
  matrix: HeatMatrix;
  patterns: PatternFinding[];
}

async function heatmapCommand(options: HeatmapOptions): Promise<void> {
  const format = heatmapFormatOf(options.out);
  if (options.metric === "cpu")
    throw new Error('metric "cpu": node CPU comes from simulations, not access logs');
  if (options.from.length > 1 && format !== "html")
    throw new Error(
      `--out ${options.out}: ${options.from.length} logs side by side need an .html page (one colour scale, one panel each)`,
    );
  const panels = await readLogs(options);
  await mkdir(dirname(options.out), { recursive: true });
  const image = {
    metric: options.metric,
    clipPercentile: options.clip,
    width: options.width,
    height: options.height,
    ...(options.scale ? { scale: options.scale } : {}),
    ...(options.title ? { title: options.title } : {}),
  };
  const [only, ...others] = panels;
  if (only !== undefined && others.length === 0) {
    await writeHeatmapFile(only.matrix, options.out, { ...image, name: only.name, patterns: only.patterns });
  } else {
    await writeFileAtomically(options.out, renderHeatmapHtml(panels, image));
  }
  process.stdout.write(options.json ? patternsAsJsonLines(panels) : patternsInWords(panels, options.out));
}

/** Each log as a matrix and its patterns, with a progress bar per log on a TTY. */
async function readLogs(options: HeatmapOptions): Promise<LogPanel[]> {
  const schema = options.schema ? await readSchemaFile(options.schema) : undefined;
  const panels: LogPanel[] = [];
  for (const [index, from] of options.from.entries()) {
    // One read of the log, or two for a log too long to keep in memory.
    const bar = fractionBar(`reading ${from}, pass {pass}`);
    const matrix = await readAccessLogMatrix(from, {
      maxRows: options.rows,
      maxColumns: options.columns,
      ...(schema ? { schema } : {}),
      ...(options.separator ? { separator: options.separator } : {}),
      ...(options.format ? { format: options.format } : {}),
      onProgress: (pass, bytes, total) => bar.update(bytes, total, { pass }),
    }).finally(bar.stop);
    const patterns = await nameHotKeys(from, detectPatterns(matrix, options.metric), {
      metric: options.metric,
      ...(schema ? { schema } : {}),
      ...(options.format ? { format: options.format } : {}),
    });
    panels.push({ name: distinctName(from, index, options.from), matrix, patterns });
  }
  return panels;
}

/** A finding's kind and place: the rest of its record is what its rule measured, and against which thresholds. */
const NOT_MEASURES: ReadonlySet<string> = new Set<keyof FindingPlace | "kind">([
  "kind",
  "keys",
  "firstRow",
  "lastRow",
  "start",
  "end",
  "firstColumn",
  "lastColumn",
  "fromS",
  "toS",
  "metric",
  "axis",
  "hotKey",
]);

function patternsAsJsonLines(panels: readonly LogPanel[]): string {
  return panels
    .flatMap((panel) =>
      panel.patterns.map((finding) => {
        const { kind, keys, start, end, fromS, toS, hotKey } = finding;
        // The rule's numbers as data (a band's contrast is null where the rest is idle).
        const measures = Object.fromEntries(
          Object.entries(finding).filter(([field]) => !NOT_MEASURES.has(field)),
        );
        const summary = findingSummary(finding);
        const rule = findingRule(finding);
        const range = { start: start.toString("hex"), end: end?.toString("hex") ?? null };
        const log = panels.length > 1 ? { log: panel.name } : {};
        // A hot row's share of the load, as before the findings were records.
        const hot = {
          ...(kind === "hot-row" ? { share: finding.share } : {}),
          ...(hotKey ? { hotKey } : {}),
        };
        return `${JSON.stringify({ ...log, kind, summary, rule, keys, ...range, fromS, toS, ...hot, measures })}\n`;
      }),
    )
    .join("");
}

function patternsInWords(panels: readonly LogPanel[], out: string): string {
  return panels
    .map(({ name, matrix, patterns }) => {
      const label = panels.length > 1 ? `${out} [${name}]` : out;
      return [
        `${label}: ${matrix.rows.length} key rows × ${matrix.time.columns} columns of ${matrix.time.columnS} s\n`,
        patterns.length === 0 ? "No known pattern: uneven load without a clear shape.\n" : "",
        ...patterns.map((pattern) => `- ${findingSummary(pattern)}\n  rule: ${findingRule(pattern)}\n`),
      ].join("");
    })
    .join("");
}

/** A log's panel name: its file name, or its whole path when two logs share a file name. */
function distinctName(from: string, index: number, all: readonly string[]): string {
  const name = basename(from);
  const clash = all.some((other, at) => at !== index && basename(other) === name);
  return clash ? `${from} (${index + 1})` : name;
}
