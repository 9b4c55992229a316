/**
 * One self-contained HTML file (inline CSS, JS and data; no CDN) showing one or more designs side
 * by side on the same colour scale: canvas heatmaps, metric and scale switch, drag-to-zoom, hover
 * tooltip with key range, time and values, and each design's detected patterns in words.
 */
import { HEAT_METRIC_UNITS, HEAT_METRICS, type HeatMetric } from "../matrix/heat-matrix.js";
import { type ColorScaleKind, type ColorScaleOptions, PALETTE, sharedScale } from "./color-scale.js";
import { escapeHtml } from "./escape-html.js";
import { HEATMAP_CLIENT_JS } from "./html-client.js";
import { type LineChart, renderLineChart } from "./line-chart.js";
import { packData } from "./packed-data.js";
import { type HeatmapDesign, pageDataJson } from "./page-data.js";

export type { HeatmapDesign } from "./page-data.js";

export interface HeatmapHtmlOptions extends ColorScaleOptions {
  title?: string;
  /** Paragraphs under the title (e.g. the lab's verdict). */
  intro?: readonly string[];
  /** Charts shown above the heatmaps (e.g. hottest-node CPU of each design over time). */
  charts?: readonly LineChart[];
  /** Shown first; default ops. */
  metric?: HeatMetric;
  /** Canvas height in px; default 560. */
  height?: number;
}

export function renderHeatmapHtml(
  designs: readonly HeatmapDesign[],
  options: HeatmapHtmlOptions = {},
): string {
  if (designs.length === 0) throw new Error("designs: expected at least one design to show");
  const names = new Set(designs.map((design) => design.name));
  if (names.size !== designs.length)
    throw new Error("designs: names must be distinct (they label the panels)");
  const metrics = HEAT_METRICS.filter((metric) => designs.some((design) => design.matrix.values[metric]));
  const metric = options.metric ?? "ops";
  if (!metrics.includes(metric))
    throw new Error(`metric "${metric}": not in this data (available: ${metrics.join(", ")})`);
  // One scale per metric across all designs: side by side, the same colour must mean the same load.
  const scales = Object.fromEntries(
    metrics.map((each) => {
      const matrices = designs.map((design) => design.matrix);
      const scaleOf = (kind: ColorScaleKind) => sharedScale(matrices, each, { ...options, scale: kind });
      return [each, { log: scaleOf("log"), linear: scaleOf("linear") }];
    }),
  );
  const scale: ColorScaleKind = options.scale ?? (metric === "cpu" ? "linear" : "log");
  const height = options.height ?? 560;
  const data = pageDataJson(
    { metric, scale, height, metrics, units: HEAT_METRIC_UNITS, scales, palette: PALETTE },
    designs,
  );
  const title = options.title ?? `keyspread heatmap: ${designs.map((design) => design.name).join(" vs ")}`;
  // Deflated: the designs' values repeat a few levels over thousands of cells, so the page is a tenth
  // of the JSON's size. Base64 has no `<`, so no key text can close the script element.
  const packed = packData(data);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
  body { margin: 16px; background: #111114; color: #dcdce1; font: 13px system-ui, sans-serif; }
  header { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
  h1 { font-size: 17px; margin: 0; }
  h2 { font-size: 14px; margin: 4px 0; }
  p.intro { max-width: 1100px; margin: 4px 0 8px; }
  p.notes { font-size: 12px; margin: 2px 0 6px; color: #ccc; }
  figure.chart { margin: 8px 0 16px; }
  figure.chart figcaption { margin-bottom: 4px; }
  figure.chart .series { margin-left: 12px; }
  figure.chart .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
  #designs { display: flex; flex-wrap: wrap; gap: 16px; width: 100%; }
  section { flex: 1 1 560px; min-width: 420px; }
  canvas { display: block; }
  ul { margin: 6px 0; padding-left: 18px; }
  li { margin: 2px 0; }
  #legend { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; color: #a0a0aa; margin-bottom: 4px; }
  #colorbar { position: relative; width: 320px; height: 30px; }
  #colorbar canvas { width: 320px; height: 12px; cursor: default; }
  #colorbar span { position: absolute; top: 14px; transform: translateX(-50%); font: 11px monospace; color: #dcdce1; white-space: nowrap; }
  #lanes-note .swatch { display: inline-block; width: 10px; height: 10px; background: rgb(0, 230, 255); margin-right: 4px; }
  canvas.panel { cursor: crosshair; }
  #tooltip { position: absolute; pointer-events: none; background: #222228ee; border: 1px solid #555; padding: 6px 8px;
    font: 12px monospace; white-space: pre; max-width: 520px; overflow: hidden; }
</style>
</head>
<body>
<header>
  <h1>${escapeHtml(title)}</h1>
  <label>metric <select id="metric"></select></label>
  <label>scale <select id="scale"><option value="log">log</option><option value="linear">linear</option></select></label>
  <button id="reset" type="button">Reset zoom</button>
  <span>drag to zoom · double-click to reset · hover for details</span>
</header>
${(options.intro ?? []).map((paragraph) => `<p class="intro">${escapeHtml(paragraph)}</p>`).join("\n")}
<div id="legend">
  <div id="colorbar" role="img" aria-label="colour scale"><canvas width="320" height="12"></canvas></div>
  <span id="scale-note"></span>
  <span id="lanes-note" hidden><span class="swatch"></span>node CPU ≥ 90 %: right lane, share of the time; lower lane, share of the keys</span>
</div>
${(options.charts ?? []).map(renderLineChart).join("\n")}
<div id="designs"></div>
<div id="tooltip" hidden></div>
<script type="application/octet-stream" id="heatmap-data">${packed}</script>
<script>${HEATMAP_CLIENT_JS}</script>
</body>
</html>
`;
}
