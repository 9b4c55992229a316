/**
 * A small inline SVG line chart: one line per series over time, for comparing designs on the same
 * axes (the replay's hottest-node CPU, current key against candidates, and their difference, which
 * goes below zero). Pure; the page embeds it.
 */
import { timeTicks } from "../matrix/time-axis.js";
import { escapeHtml } from "./escape-html.js";

export interface ChartSeries {
  name: string;
  /** Seconds since the start, and the value at that time. */
  points: readonly { t: number; value: number }[];
}

export interface LineChart {
  title: string;
  /** Formats an axis value: `percent` 87%, `points` a difference of shares in percentage points (+12, −30). */
  unit: "percent" | "points" | "number";
  series: readonly ChartSeries[];
  /** A horizontal rule, e.g. Google's 90 % for the hottest node. */
  limit?: { value: number; label: string };
}

const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { left: 48, right: 12, top: 12, bottom: 28 };
/** Distinct on the page's dark background, in the order designs are listed. */
const COLOURS = ["#ff6b5a", "#5ad1ff", "#b8e986", "#ffd166", "#c792ea", "#f78c6c", "#89ddff", "#ffffff"];

export function renderLineChart(chart: LineChart): string {
  const all = chart.series.flatMap((series) => series.points);
  if (all.length === 0) return "";
  const tMax = Math.max(...all.map((point) => point.t), 1);
  const vMax = Math.max(...all.map((point) => point.value), chart.limit?.value ?? 0) * 1.05 || 1;
  // A difference chart goes below zero; others start at zero.
  const vMin = Math.min(0, ...all.map((point) => point.value)) * 1.05;
  const x = (t: number) => MARGIN.left + (t / tMax) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (v: number) =>
    HEIGHT - MARGIN.bottom - ((v - vMin) / (vMax - vMin)) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const format = (v: number) =>
    chart.unit === "percent"
      ? `${Math.round(v * 100)}%`
      : chart.unit === "points"
        ? `${v > 0 ? "+" : ""}${Math.round(v * 100)}`
        : String(Math.round(v));
  const lines = chart.series.map((series, index) => {
    const path = series.points.map(
      (point, k) => `${k === 0 ? "M" : "L"}${x(point.t).toFixed(1)},${y(point.value).toFixed(1)}`,
    );
    return `<path d="${path.join(" ")}" fill="none" stroke="${COLOURS[index % COLOURS.length]}" stroke-width="1.5"><title>${escapeHtml(series.name)}</title></path>`;
  });
  const yTicks = vMin < 0 ? [vMin, 0, vMax] : [0, 0.5, 1].map((share) => share * vMax);
  const xTicks = timeTicks(0, tMax, false);
  const limit = chart.limit
    ? `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(chart.limit.value)}" y2="${y(chart.limit.value)}" stroke="#888" stroke-dasharray="4 3"/><text x="${WIDTH - MARGIN.right}" y="${y(chart.limit.value) - 3}" text-anchor="end" fill="#aaa">${escapeHtml(chart.limit.label)}</text>`
    : "";
  const legend = chart.series
    .map(
      (series, index) =>
        `<span class="series"><span class="swatch" style="background:${COLOURS[index % COLOURS.length]}"></span>${escapeHtml(series.name)}</span>`,
    )
    .join(" ");
  return `<figure class="chart"><figcaption>${escapeHtml(chart.title)} ${legend}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(chart.title)}" font-size="11" font-family="system-ui, sans-serif">
${yTicks.map((v) => `<text x="${MARGIN.left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#aaa">${format(v)}</text><line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(v)}" y2="${y(v)}" stroke="#333"/>`).join("\n")}
${xTicks.map((tick) => `<text x="${x(tick.offsetS)}" y="${HEIGHT - 8}" text-anchor="middle" fill="#aaa">${escapeHtml(tick.label)}</text>`).join("\n")}
${limit}
${lines.join("\n")}
</svg></figure>`;
}
