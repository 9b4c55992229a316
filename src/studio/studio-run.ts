/**
 * One studio run, from the page's state to everything the page shows and exports: the YAML with the
 * controls applied, judged by the lab's own judgement (src/lab/judge.ts) with the options `keyspread
 * lab` takes, and the files `lab --out` writes, made by the same functions. Pure (no I/O, no DOM):
 * the Web Worker runs it in the page, the tests run it in Node against the CLI's files.
 */
import { dump } from "js-yaml";
import { candidateLabel } from "../advise/judge/advise.js";
import { lossReason } from "../advise/judge/loss-reason.js";
import type { JudgedCandidate } from "../advise/judge/recommend.js";
import { adviceToJson } from "../advise/report/advice-json.js";
import { adviceHtml } from "../advise/report/report-html.js";
import { adviceMarkdown } from "../advise/report/report-markdown.js";
import { sizingLines } from "../advise/report/report-sizing.js";
import { candidateVerdict } from "../advise/report/report-table.js";
import { recommendedSchemaFile } from "../advise/report/schema-file.js";
import { headlineLines, type VerdictHeadline, verdictHeadline } from "../advise/report/verdict-headline.js";
import { type JudgeScenarioOptions, type JudgeScenarioProgress, judgeScenario } from "../lab/judge.js";
import { labCpuChart, labHeatmapDesigns, labHeatmapHeading, labResultsJson } from "../lab/lab-files.js";
import { rekeySizing } from "../lab/rekey-sizing.js";
import { loadScenarioDocument, validateScenario } from "../sim/scenario/scenario.js";
import { rememberedStepsMatrix } from "../viz/matrix/remembered-steps-matrix.js";
import { renderHeatmapHtml } from "../viz/render/html.js";
import { renderLineChart } from "../viz/render/line-chart.js";
import { applyControls, type StudioControls } from "./controls.js";
import { multiClusterLines } from "./multi-cluster-lines.js";
import { type ScenarioProblem, scenarioProblems } from "./scenario-problems.js";

export interface StudioRequest {
  yaml: string;
  controls: StudioControls;
  /** `lab --duration` in seconds; default the scenario's. */
  durationS?: number;
  /** `lab --no-sensitivity` when false; default true, as the CLI. */
  sensitivity?: boolean;
}

/** One shown design's figures, for the comparison of two designs. */
export interface StudioDesign {
  name: string;
  label: string;
  verdict: string;
  recommended: boolean;
  nodes: number;
  nodesNeeded: number | null;
  monthlyUsd: number | null;
  hottestCpu: number;
  averageCpu: number;
  meets: boolean;
  /** Why it loses to the recommendation (empty for the recommendation). */
  loses: string;
}

export interface StudioJudged {
  kind: "judged";
  scenario: string;
  headline: VerdictHeadline;
  headlineLines: string[];
  sizingLines: string[];
  multiClusterLines: string[];
  designs: StudioDesign[];
  /** The side-by-side heatmap page (the file `lab --out` writes as heatmaps.html). */
  heatmapsHtml: string;
  /** Each shown design's hottest node CPU over time, as inline SVG. */
  cpuChartSvg: string;
  /** What `lab --out` writes (the heatmap images aside), plus the scenario as run. */
  files: Record<string, string>;
}

export interface StudioInvalid {
  kind: "invalid";
  problems: ScenarioProblem[];
}

export type StudioOutcome = StudioJudged | StudioInvalid;

/** The scenario text as run: the YAML itself when no control changed it, else the document the controls give. */
export function scenarioAsRun(yaml: string, controls: StudioControls): string {
  if (Object.keys(controls).length === 0) return yaml;
  // Through JSON: the document as plain data, so the dump repeats what YAML anchors shared.
  const document = JSON.parse(JSON.stringify(applyControls(loadScenarioDocument(yaml), controls)));
  return dump(document, { lineWidth: 120 });
}

/** How a run reports and what it runs on: the worker passes its SimulationMemo's simulate, kept from change to change. */
export interface StudioHooks {
  onProgress?: (progress: JudgeScenarioProgress) => void;
  simulate?: JudgeScenarioOptions["simulate"];
}

export function runStudio(request: StudioRequest, hooks: StudioHooks = {}): StudioOutcome {
  let yaml: string;
  let scenario: ReturnType<typeof validateScenario>;
  try {
    yaml = scenarioAsRun(request.yaml, request.controls);
    scenario = validateScenario(loadScenarioDocument(yaml));
  } catch (error) {
    return { kind: "invalid", problems: scenarioProblems((error as Error).message, request.yaml) };
  }
  const verdict = judgeScenario(scenario, {
    sensitivity: request.sensitivity ?? true,
    ...(request.durationS === undefined ? {} : { durationS: request.durationS }),
    ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
    ...(hooks.simulate ? { simulate: hooks.simulate } : {}),
  });
  const { advice } = verdict;
  const designs = labHeatmapDesigns(verdict);
  const heading = labHeatmapHeading(verdict);
  const heatmapsHtml = renderHeatmapHtml(
    designs.map((design) => ({
      name: design.name,
      matrix: rememberedStepsMatrix(design.steps, design.naming),
      notes: design.notes,
    })),
    heading,
  );
  const schema = recommendedSchemaFile(advice);
  const rekey = rekeySizing(scenario, advice);
  const files: Record<string, string> = {
    "scenario.yaml": yaml,
    "advice.json": `${adviceToJson(advice)}\n`,
    ...(schema ? { "recommended-schema.yaml": schema } : {}),
    "report.md": adviceMarkdown(advice, {
      ...(schema ? { schemaFileName: "recommended-schema.yaml" } : {}),
      heatmapPage: "heatmaps.html",
    }),
    "report.html": adviceHtml(advice),
    "results.json": labResultsJson(verdict),
    "heatmaps.html": heatmapsHtml,
    ...(rekey ? { "migration.json": `${JSON.stringify(rekey, null, 2)}\n` } : {}),
  };
  return {
    kind: "judged",
    scenario: advice.scenario,
    headline: verdictHeadline(advice),
    headlineLines: headlineLines(advice),
    sizingLines: sizingLines(advice),
    multiClusterLines: advice.multiCluster ? multiClusterLines(advice.multiCluster) : [],
    designs: verdict.shown.map((each) => studioDesign(verdict.advice, each)),
    heatmapsHtml,
    cpuChartSvg: renderLineChart(labCpuChart(verdict)),
    files,
  };
}

function studioDesign(advice: Parameters<typeof candidateVerdict>[0], each: JudgedCandidate): StudioDesign {
  const summary = each.result.summary;
  const recommended = each === advice.recommended;
  return {
    name: each.candidate.name,
    label: candidateLabel(each, advice.nodes),
    verdict: recommended ? "recommended" : candidateVerdict(advice, each),
    recommended,
    nodes: each.nodes,
    nodesNeeded: each.sizing.atGrowth.total,
    monthlyUsd: each.cost?.total ?? null,
    hottestCpu: summary.steadyState.hottestNodeCpu,
    averageCpu: summary.steadyState.averageNodeCpu,
    meets: summary.guidance.meets,
    loses: recommended ? "" : lossReason(each, advice.recommended).reason,
  };
}
