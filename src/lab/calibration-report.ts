/**
 * The fit to the running cluster in sentences: what was observed, where the model had to move to
 * reproduce it (which constants, how far), the range that still agrees, or — when nothing within
 * the constants' ranges reproduces it — what that suggests.
 */
import { percent } from "../advise/judge/score.js";
import { formatBytes } from "../format/bytes.js";
import { MODEL_CONSTANTS } from "../sim/cluster/model-constants.js";
import { type Calibration, OBSERVATION_TOLERANCE } from "../sim/results/calibrate.js";
import { SETTLED_RATIO } from "../sim/results/summary.js";

const METRIC_WORDS = { averageCpu: "average CPU", hottestCpu: "hottest node" } as const;

/** Three significant digits: a fitted value, not a measurement. */
const number = (value: number) => Number(value.toPrecision(3)).toLocaleString("en-US");

/** What the cluster showed, in a few words. */
function observedText(calibration: Calibration): string {
  const { observed } = calibration;
  const figures = [
    observed.averageCpu === undefined ? "" : `average CPU ${percent(observed.averageCpu)}`,
    observed.hottestCpu === undefined ? "" : `hottest node ${percent(observed.hottestCpu)}`,
  ].filter(Boolean);
  const rate =
    observed.writesPerS === undefined ? "" : ` at ${observed.writesPerS.toLocaleString("en-US")} writes/s`;
  return `${observed.nodes} nodes, ${figures.join(", ")}${rate}`;
}

/** What the observed bytes per node say about the compression, or about the scenario's retention. */
function storageLine(calibration: Calibration): string[] {
  const storage = calibration.storage;
  const observedBytes = calibration.observed.storageBytesPerNode;
  if (!storage || observedBytes === undefined) return [];
  return [
    storage.withinRange
      ? `The observed ${formatBytes(observedBytes)} per node is the kept data compressed ${number(storage.compression)}:1 (workload.compression), within its documented range${calibration.fit.status === "fitted" ? "; storage is sized with it" : ""}.`
      : `The observed ${formatBytes(observedBytes)} per node would need a compression of ${number(storage.compression)}:1, outside its documented range (${MODEL_CONSTANTS.compression.low}–${MODEL_CONSTANTS.compression.high}): the cluster keeps ${storage.compression < 1 ? "more" : "less"} than the stated rows over the stated retention — check the retention and the row size.`,
  ];
}

export function calibrationLines(calibration: Calibration | undefined): string[] {
  if (!calibration) return [];
  const { fit, metric, atEnds } = calibration;
  const observed = calibration.observed[metric]!;
  const lead = `Calibrated to the running cluster (${observedText(calibration)}; ${calibration.runs} simulations of the current key):`;
  if (fit.status === "unreproduced") {
    const end = fit.side === "above" ? atEnds.pessimistic : atEnds.optimistic;
    const why =
      fit.side === "above"
        ? "the cluster runs hotter than the model can make this key with any constants in their ranges. That suggests load the model spreads but the cluster does not: a hot row, or a narrow range that cannot split where the model expects a wide one — or a workload heavier than the scenario states"
        : "the cluster runs cooler than the model's cheapest constants allow: the scenario likely overstates the workload (rates, row sizes, reads)";
    return [
      `${lead} no constants within their documented ranges reproduce it — at their ${fit.side === "above" ? "pessimistic" : "optimistic"} ends the current key's ${METRIC_WORDS[metric]} is ${percent(end[metric])} against the observed ${percent(observed)}: ${why}. The designs are judged at the model's defaults, with the ranges of its ends.`,
      ...storageLine(calibration),
    ];
  }
  const direction = fit.t >= 0 ? "pessimistic" : "optimistic";
  const moved = fit.moved.map((each) => `${each.field} ${number(each.from)} → ${number(each.to)}`).join(", ");
  const lines = [
    `${lead} the model reproduces its ${METRIC_WORDS[metric]} (${percent(fit.figures[metric])}) with its uncertain constants ${percent(Math.abs(fit.t))} of the way from their defaults to their ${direction} ends: ${moved || "none moved"}. Every design is judged under these constants; the ranges in brackets are the constants that still agree with the observation within ±${number(OBSERVATION_TOLERANCE * 100)} points (the path from ${number(fit.range.low)} to ${number(fit.range.high)}, where −1 is every constant at its optimistic end and 1 at its pessimistic end).`,
  ];
  lines.push(...storageLine(calibration));
  if (fit.otherMetric)
    lines.push(
      `The fitted model disagrees on the ${METRIC_WORDS[fit.otherMetric.metric]}: ${percent(fit.otherMetric.simulated)} against the observed ${percent(fit.otherMetric.observed)}${fit.otherMetric.metric === "hottestCpu" && fit.otherMetric.observed > fit.otherMetric.simulated ? " — the cluster's hottest node carries load the model spreads: a hot row, or a narrow range that cannot split where the model expects a wide one" : ""}.`,
    );
  else if (metric === "hottestCpu" && fit.figures.maxOverMedian <= SETTLED_RATIO)
    lines.push(
      `Under the fit the current key's load is spread (hottest node ${fit.figures.maxOverMedian.toFixed(1)}× the median, average ${percent(fit.figures.averageCpu)}). If the cluster's other nodes are as idle as its hottest is busy, the hot load is a row or a narrow range that does not split — which the model spreads: state the average CPU too (observed.averageCpu) to test that.`,
    );
  return lines;
}
