/** The advisor's report as Markdown (pure: the CLI writes it). */

import type { KeyStructure } from "../infer/key-structure.js";
import type { Advice } from "../judge/advise.js";
import { KEY_CHANGE_COMPLEXITY } from "../judge/candidates.js";
import { beyondTheKeyText } from "./beyond-the-key-text.js";
import { clusterOptionLines } from "./cluster-options-report.js";
import { multiClusterReport } from "./multi-cluster-report.js";
import { sizingLines } from "./report-sizing.js";
import {
  CANDIDATE_COLUMNS,
  CANDIDATE_LEGEND,
  candidateRows,
  headline,
  headroomLines,
  loserLines,
  simulatedAgainst,
  structureTable,
  unsimulatedReads,
} from "./report-table.js";
import { recommendedSchemaFile } from "./schema-file.js";
import { headlineLines } from "./verdict-headline.js";

export interface AdviceMarkdownOptions {
  /** The structure inferred from a key sample, when that was the input. */
  structure?: KeyStructure;
  /** Heatmap images beside the report (paths relative to it), by candidate name. */
  heatmapImages?: readonly { name: string; path: string }[];
  /** The interactive side-by-side heatmap page, relative to the report. */
  heatmapPage?: string;
  /** The recommended schema file written beside the report. */
  schemaFileName?: string;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const tableOf = (header: readonly string[], rows: readonly string[][]) =>
  [
    `| ${header.map(cell).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n");

export function adviceMarkdown(advice: Advice, options: AdviceMarkdownOptions = {}): string {
  const out: string[] = [];
  out.push(`# keyspread advise: ${advice.scenario}`, "");
  out.push(...headlineLines(advice).map((line) => `${line}  `), "");
  out.push(`**${headline(advice)}**`, "");
  out.push(simulatedAgainst(advice), "");
  const sizing = sizingLines(advice);
  if (sizing.length > 0) out.push("## Sizing and cost", "", ...sizing.map((line) => `- ${line}`), "");
  if (options.structure) {
    const { header, rows } = structureTable(options.structure);
    out.push("## The key, from the sample", "");
    out.push(
      `${options.structure.sampleSize} keys${options.structure.skipped ? ` (${options.structure.skipped} with another shape skipped)` : ""}, separator ${options.structure.separator === undefined ? "none" : `\`${options.structure.separator}\``}.`,
      "",
    );
    out.push(tableOf(header, rows), "", advice.description ?? options.structure.explanation, "");
  }
  out.push("## Candidates", "");
  out.push(tableOf(CANDIDATE_COLUMNS, candidateRows(advice)), "", CANDIDATE_LEGEND, "");
  out.push(
    `Complexity is the simplicity order: ${Object.entries(KEY_CHANGE_COMPLEXITY)
      .map(([kind, weight]) => `${kind} ${weight}`)
      .join(
        ", ",
      )} (summed); ties go to fewer salt buckets, then the smaller read fan-out, then cost. The recommendation is the simplest candidate that meets every target, today and at the stated growth (${advice.growth}× today).`,
    "",
  );
  const headroom = headroomLines(advice);
  if (headroom.length > 0)
    out.push(
      `## At the stated growth (${advice.growth}× today)`,
      "",
      ...headroom.map((line) => `- ${line}`),
      "",
    );
  const unsimulated = unsimulatedReads(advice);
  if (unsimulated.length > 0)
    out.push("## Reads not simulated", "", ...unsimulated.map((line) => `- ${line}`), "");
  out.push("## The decision, in the salting guide's terms", "");
  out.push(
    tableOf(
      ["factor", "this workload", "points to"],
      advice.decision.map((row) => [
        row.factor,
        row.observed,
        row.pointsTo === "salting" ? "salting" : row.pointsTo === "alternatives" ? "alternatives" : "either",
      ]),
    ),
    "",
  );
  if (advice.multiCluster) {
    out.push(
      "## Multi-cluster",
      "",
      ...multiClusterReport(advice.multiCluster).flatMap((part) =>
        part.kind === "table"
          ? ["```", ...part.lines, "```", ""]
          : part.kind === "list"
            ? [part.lines[0]!, "", ...part.lines.slice(1).map((item) => `- ${item}`), ""]
            : [...part.lines, ""],
      ),
    );
  }
  if (advice.clusterOptions) {
    out.push(
      "## Cluster options",
      "",
      ...clusterOptionLines(advice.clusterOptions).map((line) => `- ${line}`),
      "",
    );
  }
  if (advice.beyondTheKey.length > 0) {
    out.push(
      "## Beyond the key",
      "",
      ...advice.beyondTheKey.map((note) => `- ${beyondTheKeyText(note)}`),
      "",
    );
  }
  out.push(
    "## Why the others lose",
    "",
    ...loserLines(advice).map((loser) =>
      loser.name ? `- **${loser.name}**: ${loser.reason}` : `- ${loser.reason}`,
    ),
    "",
  );
  if (options.heatmapImages && options.heatmapImages.length > 0) {
    out.push("## Heatmaps", "");
    if (options.heatmapPage)
      out.push(`Side by side on one colour scale: [${options.heatmapPage}](${options.heatmapPage})`, "");
    out.push(...options.heatmapImages.map((image) => `![${image.name}](${image.path})`), "");
  }
  const schema = recommendedSchemaFile(advice);
  if (schema) {
    out.push("## Recommended schema", "");
    if (options.schemaFileName) {
      out.push(
        `Written to \`${options.schemaFileName}\`: \`keyspread keys encode --schema ${options.schemaFileName}\`, \`keyspread table create --schema ${options.schemaFileName}\`.`,
        "",
      );
    }
    out.push("```yaml", schema.trimEnd(), "```", "");
  }
  return out.join("\n");
}
