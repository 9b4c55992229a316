/**
 * The advisor's report as one self-contained HTML page (pure string; no CDN): the headline, the
 * candidate table, the decision in the salting guide's terms, the notes beyond the key, why the others
 * lose, the heatmaps side by side on one colour scale (the viz page, inlined), and the schema file.
 */

import { compileSchema } from "../../keys/schema.js";
import { rememberedStepsMatrix } from "../../viz/matrix/remembered-steps-matrix.js";
import { escapeHtml } from "../../viz/render/escape-html.js";
import { renderHeatmapHtml } from "../../viz/render/html.js";
import type { KeyStructure } from "../infer/key-structure.js";
import { type Advice, candidateLabel } from "../judge/advise.js";
import { beyondTheKeyText } from "./beyond-the-key-text.js";
import { sizingLines } from "./report-sizing.js";
import {
  CANDIDATE_COLUMNS,
  CANDIDATE_LEGEND,
  candidateRows,
  headline,
  headroomLines,
  heatmapCandidates,
  loserLines,
  simulatedAgainst,
  structureTable,
  unsimulatedReads,
} from "./report-table.js";
import { recommendedSchemaFile } from "./schema-file.js";

export interface AdviceHtmlOptions {
  structure?: KeyStructure;
}

const HEATMAP_CANVAS_HEIGHT = 420;
const HEATMAP_PANEL_HEIGHT = HEATMAP_CANVAS_HEIGHT + 110;
const HEATMAP_FRAME_MARGIN = 90;

function table(
  header: readonly string[],
  rows: readonly string[][],
  highlight?: (row: string[]) => boolean,
): string {
  const head = header.map((name) => `<th>${escapeHtml(name)}</th>`).join("");
  const body = rows
    .map(
      (row) =>
        `<tr${highlight?.(row) ? ' class="chosen"' : ""}>${row.map((value) => `<td>${escapeHtml(value)}</td>`).join("")}</tr>`,
    )
    .join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A titled bullet list (Markdown bold rendered), or nothing when empty. */
function list(title: string, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const item = (line: string) => escapeHtml(line).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>");
  return [
    `<h2>${escapeHtml(title)}</h2>`,
    `<ul>${lines.map((line) => `<li>${item(line)}</li>`).join("\n")}</ul>`,
  ];
}

/** The viz side-by-side page for the shown candidates, inlined as an iframe's srcdoc. */
function heatmapFrame(advice: Advice): string {
  const shown = heatmapCandidates(advice);
  if (shown.length === 0) return "<p>No candidate could be simulated, so there is no heatmap.</p>";
  const page = renderHeatmapHtml(
    shown.map((each) => ({
      name: candidateLabel(each, advice.nodes),
      matrix: rememberedStepsMatrix(each.result.loadSteps, compileSchema(each.candidate.design.schema)),
    })),
    { title: `${advice.scenario}: key-space load`, height: HEATMAP_CANVAS_HEIGHT },
  );
  // The page lays the panels out two abreast; the frame is tall enough to show them all.
  const height = HEATMAP_FRAME_MARGIN + Math.ceil(shown.length / 2) * HEATMAP_PANEL_HEIGHT;
  return `<iframe title="heatmaps" style="height: ${height}px" srcdoc="${escapeHtml(page)}"></iframe>`;
}

export function adviceHtml(advice: Advice, options: AdviceHtmlOptions = {}): string {
  const chosen = advice.recommended ? candidateLabel(advice.recommended, advice.nodes) : undefined;
  const schema = recommendedSchemaFile(advice);
  const structure = options.structure ? structureTable(options.structure) : undefined;
  const sections = [
    `<h1>keyspread advise: ${escapeHtml(advice.scenario)}</h1>`,
    `<p class="headline">${escapeHtml(headline(advice))}</p>`,
    `<p>${escapeHtml(simulatedAgainst(advice))}</p>`,
    ...list("Sizing and cost", sizingLines(advice)),
    ...(structure && options.structure
      ? [
          "<h2>The key, from the sample</h2>",
          table(structure.header, structure.rows),
          `<p>${escapeHtml(advice.description ?? options.structure.explanation)}</p>`,
        ]
      : []),
    "<h2>Candidates</h2>",
    table(CANDIDATE_COLUMNS, candidateRows(advice), (row) => row[0] === chosen),
    `<p class="legend">${escapeHtml(CANDIDATE_LEGEND)}</p>`,
    ...list(`At the stated growth (${advice.growth}× today)`, headroomLines(advice)),
    ...list("Reads not simulated", unsimulatedReads(advice)),
    "<h2>The decision, in the salting guide's terms</h2>",
    table(
      ["factor", "this workload", "points to"],
      advice.decision.map((row) => [row.factor, row.observed, row.pointsTo]),
    ),
    ...(advice.beyondTheKey.length > 0
      ? [
          "<h2>Beyond the key</h2>",
          `<ul>${advice.beyondTheKey.map((note) => `<li>${escapeHtml(beyondTheKeyText(note))}</li>`).join("")}</ul>`,
        ]
      : []),
    "<h2>Why the others lose</h2>",
    `<ul>${loserLines(advice)
      .map(
        (loser) =>
          `<li>${loser.name ? `<b>${escapeHtml(loser.name)}</b>: ` : ""}${escapeHtml(loser.reason)}</li>`,
      )
      .join("\n")}</ul>`,
    "<h2>Heatmaps, side by side</h2>",
    heatmapFrame(advice),
    ...(schema ? ["<h2>Recommended schema</h2>", `<pre>${escapeHtml(schema)}</pre>`] : []),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>keyspread advise: ${escapeHtml(advice.scenario)}</title>
<style>
  body { margin: 16px 24px; font: 14px system-ui, sans-serif; color: #1d1d22; }
  h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
  .headline { font-size: 15px; font-weight: 600; }
  table { border-collapse: collapse; font-size: 12px; }
  th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
  th { background: #f0f0f4; }
  tr.chosen td { background: #e3f4e3; font-weight: 600; }
  .legend { color: #555; font-size: 12px; }
  pre { background: #f6f6f8; padding: 10px; overflow: auto; }
  iframe { width: 100%; border: 1px solid #ccc; }
</style>
</head>
<body>
${sections.join("\n")}
</body>
</html>
`;
}
