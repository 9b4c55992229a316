/**
 * What a run shows: the verdict (the CLI's headline lines), sizing and $/month, the multi-cluster
 * answer, two designs compared (differences highlighted, why the other loses), the hottest node's
 * CPU over time and the heatmaps side by side (the lab's own heatmap page, in a frame). The verdict's
 * figures also go on data attributes, which the tests and the share link's round trip read.
 */

import { escapeHtml } from "../../viz/render/escape-html.js";
import type { StudioDesign } from "../studio-run.js";
import type { ShownJudged } from "./posted-outcome.js";

const dollars = (usd: number | null) => (usd === null ? "–" : `$${Math.round(usd).toLocaleString("en")}`);
const percent = (share: number) => `${Math.round(share * 100)} %`;

function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}: index.html and results-view.ts disagree`);
  return element;
}

export function showJudged(judged: ShownJudged, compared: [string, string] | undefined): void {
  const verdict = byId("verdict");
  const { headline } = judged;
  verdict.dataset.recommended = headline.recommended?.design ?? "";
  verdict.dataset.nodes = String(headline.recommended?.nodes ?? "");
  verdict.dataset.monthlyUsd = String(headline.recommended?.monthlyUsd ?? "");
  verdict.dataset.sizedBy = headline.sizedBy;
  verdict.innerHTML = [
    `<h2>${escapeHtml(judged.scenario)}</h2>`,
    ...judged.headlineLines.map(
      (line, index) => `<p class="${index === 1 ? "headline" : "reason"}">${escapeHtml(line)}</p>`,
    ),
  ].join("");
  byId("sizing").innerHTML =
    judged.sizingLines.length === 0
      ? ""
      : `<h2>Sizing and cost</h2>${judged.sizingLines.map((line) => `<p>${escapeHtml(line)}</p>`).join("")}`;
  byId("multi-cluster").innerHTML =
    judged.multiClusterLines.length === 0
      ? ""
      : `<h2>Clusters</h2><div class="multi">${escapeHtml(judged.multiClusterLines.join("\n"))}</div>`;
  showComparison(judged.designs, compared);
  byId("cpu-chart").innerHTML = judged.cpuChartSvg;
}

/**
 * The heatmap frame loads a run's heatmaps.html from its URL; without one (a new verdict whose files
 * have not come yet) it keeps the last run's page, marked as old.
 */
export function showHeatmaps(url: string | undefined): void {
  const frame = byId("heatmaps") as HTMLIFrameElement;
  frame.classList.toggle("stale", url === undefined);
  if (url !== undefined) frame.src = url;
}

/** Two designs side by side: the recommendation and the first other one, unless the user picked. */
export function showComparison(
  designs: readonly StudioDesign[],
  compared: [string, string] | undefined,
): void {
  const container = byId("compare");
  if (designs.length === 0) {
    container.innerHTML = "";
    return;
  }
  const recommended = designs.find((each) => each.recommended) ?? designs[0]!;
  const other = designs.find((each) => each !== recommended) ?? recommended;
  const pick = (label: string | undefined, fallback: StudioDesign) =>
    designs.find((each) => each.label === label) ?? fallback;
  const a = pick(compared?.[0], recommended);
  const b = pick(compared?.[1], other);
  const select = (id: string, chosen: StudioDesign) =>
    `<select id="${id}">${designs
      .map(
        (each) =>
          `<option value="${escapeHtml(each.label)}"${each === chosen ? " selected" : ""}>${escapeHtml(each.label)}</option>`,
      )
      .join("")}</select>`;
  const rows: [string, (design: StudioDesign) => string][] = [
    ["verdict", (design) => design.verdict],
    ["nodes simulated", (design) => String(design.nodes)],
    [
      "nodes needed",
      (design) => (design.nodesNeeded === null ? "more won't help" : String(design.nodesNeeded)),
    ],
    ["$/month", (design) => dollars(design.monthlyUsd)],
    ["hottest node CPU", (design) => percent(design.hottestCpu)],
    ["average node CPU", (design) => percent(design.averageCpu)],
    ["meets Google's targets", (design) => (design.meets ? "yes" : "no")],
  ];
  container.innerHTML = [
    `<h2>Compare ${select("compare-a", a)} with ${select("compare-b", b)}</h2>`,
    `<table><tr><th></th><th>${escapeHtml(a.label)}</th><th>${escapeHtml(b.label)}</th></tr>`,
    ...rows.map(([name, value]) => {
      const differs = value(a) !== value(b) ? ' class="differs"' : "";
      return `<tr><th>${name}</th><td${differs}>${escapeHtml(value(a))}</td><td${differs}>${escapeHtml(value(b))}</td></tr>`;
    }),
    "</table>",
    ...[a, b]
      .filter((each) => each.loses !== "")
      .map(
        (each) =>
          `<p class="loses"><b>Why ${escapeHtml(each.label)} loses:</b> ${escapeHtml(each.loses)}</p>`,
      ),
  ].join("");
}
