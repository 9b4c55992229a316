/**
 * What `keyspread lab --out` writes that is computed, not I/O: results.json and the heatmap page's
 * designs, charts and intro, from one verdict. The CLI writes them to disk; the studio shows and
 * exports them from its Web Worker. Pure, so both get the same bytes from the same verdict.
 */
import { candidateLabel } from "../advise/judge/advise.js";
import { lossReason } from "../advise/judge/loss-reason.js";
import { candidateVerdict } from "../advise/report/report-table.js";
import { compileSchema } from "../keys/schema.js";
import type { KeySchema } from "../keys/types.js";
import type { LoadStep } from "../load/key-load.js";
import { guidanceLine } from "../sim/results/report.js";
import { simulationResultToJson } from "../sim/results/result-json.js";
import { HOTTEST_CPU_LIMIT } from "../sim/results/summary.js";
import type { LineChart } from "../viz/render/line-chart.js";
import type { LabVerdict } from "./judge.js";
import { labIntro } from "./lab-report.js";

export interface LabHeatmapDesign {
  name: string;
  steps: readonly LoadStep[];
  naming: KeySchema;
  notes: string[];
}

/** One heatmap per shown design, labelled as the reports label it, with its verdict in words. */
export function labHeatmapDesigns(verdict: LabVerdict): LabHeatmapDesign[] {
  const { advice } = verdict;
  return verdict.shown.map((each) => ({
    name: candidateLabel(each, advice.nodes),
    steps: each.result.loadSteps,
    naming: compileSchema(each.candidate.design.schema),
    notes: [
      each === advice.recommended
        ? "recommended"
        : `${candidateVerdict(advice, each)}: ${lossReason(each, advice.recommended).reason}`,
      guidanceLine(each.result),
    ],
  }));
}

/** The heatmap page's title and intro paragraphs. */
export function labHeatmapHeading(verdict: LabVerdict): { title: string; intro: string[] } {
  return { title: `keyspread lab: ${verdict.advice.scenario}`, intro: labIntro(verdict) };
}

/** Each shown design's hottest node CPU over the run, against Google's 90 %. */
export function labCpuChart(verdict: LabVerdict): LineChart {
  return {
    title: "Hottest node CPU over time",
    unit: "percent",
    limit: { value: HOTTEST_CPU_LIMIT, label: "Google: hottest ≤ 90 %" },
    series: verdict.shown.map((each) => ({
      name: candidateLabel(each, verdict.advice.nodes),
      points: each.result.timeline.map((point) => ({ t: point.t, value: point.hottestNodeCpu })),
    })),
  };
}

/** results.json: the shown designs' simulation summaries, with their ranges over the model's ends. */
export function labResultsJson(verdict: LabVerdict, options: { series?: boolean } = {}): string {
  const { advice, ends } = verdict;
  const simulated = verdict.shown;
  const results = {
    scenario: advice.scenario,
    ...(advice.description === undefined ? {} : { description: advice.description }),
    durationS: advice.durationS,
    designs: simulated.map((each) => ({ ...each.result, design: candidateLabel(each, advice.nodes) })),
  };
  const sensitivity = simulated.map((each) => ends.get(each)).filter((each) => each !== undefined);
  return simulationResultToJson(results, {
    ...(options.series ? { series: true } : {}),
    ...(sensitivity.length === simulated.length ? { sensitivity } : {}),
  });
}
