/**
 * A finding in words: the summary names the pattern, its keys and time span; the rule gives the
 * measured numbers against the thresholds. The one renderer of findings: the CLI prints these
 * sentences, the HTML page shows them (the rule as the summary's tooltip). Pure.
 */
import { HEAT_METRIC_UNITS } from "../matrix/heat-matrix.js";
import { timeLabel } from "../matrix/time-axis.js";
import { percent } from "./density-grid.js";
import type { FindingPlace, PatternFinding, PatternMeasures } from "./finding.js";
import { exactRange } from "./key-range-name.js";

/** One sentence for people, naming the key range and the time span (and the busiest key, when known). */
export function findingSummary(finding: PatternFinding): string {
  const named = finding.keys.startsWith("the ") ? finding.keys : `keys ${finding.keys}`;
  const span = `${timeText(finding, finding.fromS)} to ${timeText(finding, finding.toS)}`;
  const busiest = finding.hotKey
    ? ` The busiest key: ${finding.hotKey.key}, ${Math.round(finding.hotKey.share * 100)} % of the ${finding.metric} then.`
    : "";
  return `${what(finding)}: ${named}, ${span} (${HEAT_METRIC_UNITS[finding.metric]}).${busiest}`;
}

/** The rule that fired, with the measured numbers and the thresholds; a prefix-named band gives its exact range. */
export function findingRule(finding: PatternFinding): string {
  const exact = finding.keys.endsWith("*") ? `; keys ${exactRange(finding.start, finding.end)}` : "";
  return `${ruleText(finding)}${exact}`;
}

/** Logs: the full UTC time (a sentence may be read days later); simulations: as the axis reads. */
function timeText({ axis }: FindingPlace, s: number): string {
  return axis.epoch
    ? new Date(s * 1000).toISOString().replace(".000Z", "Z")
    : `t=${timeLabel(s - axis.startS, false, axis.columns * axis.columnS)}`;
}

function times(contrast: number): string {
  if (!Number.isFinite(contrast)) return "the rest idle";
  return `${contrast >= 100 ? ">99" : +contrast.toPrecision(2)}× the rest per key`;
}

const minutes = (s: number) => +(s / 60).toFixed(1);

function what(finding: PatternFinding): string {
  switch (finding.kind) {
    case "hot-band": {
      const nodes = finding.saturatedNodes;
      const shares = `${percent(finding.loadShare)} of the load on ${percent(finding.keyShare)} of the key space, ${times(finding.contrast)}`;
      return nodes
        ? `Sustained hot band, nodes saturated (${shares}; a node at ≥ ${percent(nodes.hotCpu)} CPU in ${percent(nodes.timeShare)} of the run)`
        : `Sustained hot band (${shares})`;
    }
    case "hot-row":
      return `${finding.firstRow === finding.lastRow ? "Hot row" : "Hot narrow range"} (${percent(finding.share)} of the load for ${minutes(finding.durationS)} min)`;
    case "diagonal":
      return `Sequential diagonal (${finding.correlation > 0 ? "ascending" : "descending"} keys: writes or reads walk the key space)`;
    case "periodic":
      return `Periodic bursts (a job every ~${+finding.periodS.toFixed(1)} s)`;
    case "vertical-band":
      return "Full-height vertical band (every key at once: a client, batch or network event)";
    case "sudden-hot-range":
      return "Sudden hot range (a key range turned hot and stayed hot)";
    case "saturated-range":
      return `Saturated nodes under an even load (no key range is brighter than the rest, yet ranges holding ${percent(finding.keyShare)} of the key space sit on nodes at ≥ ${percent(finding.thresholds.hotCpu)} CPU while the others' run at a median ${percent(finding.otherCpu)}: tablets unevenly spread over the nodes)`;
    case "saturated-cluster":
      return `Saturated cluster (the load is spread, but every part of the key space sits on a node at ≥ ${percent(finding.thresholds.hotCpu)} CPU: add nodes, or cut the work per request such as read fan-out)`;
    case "healthy":
      return "Healthy fine-grained spread (no hotspot)";
  }
}

function ruleText(measures: PatternMeasures): string {
  switch (measures.kind) {
    case "hot-band": {
      const { thresholds: rule, saturatedNodes } = measures;
      return (
        `hot band: ${percent(measures.keyShare)} of the key space carries ${percent(measures.loadShare)} of the load ` +
        `(≥ ${percent(rule.minShare)} on ≤ ${percent(rule.maxKeyFraction)}), ${times(measures.contrast)} ` +
        `(≥ ${rule.minContrast}×${saturatedNodes ? ", as nodes are saturated" : ""}), and ≥ ${rule.minColumnContrast}× in ` +
        `${percent(measures.sustainedShare)} of active columns (≥ ${percent(rule.minColumns)})`
      );
    }
    case "hot-row": {
      const { thresholds: rule } = measures;
      return `hot row: ${measures.keyShare < 0.01 ? "< 1 %" : percent(measures.keyShare)} of the key space carries ${percent(measures.share)} of the load (≥ ${percent(rule.minShare)} in every column, ≥ ${rule.minContrast}× its key share) for ${minutes(measures.durationS)} min (≥ ${rule.minDurationS / 60} min)`;
    }
    case "diagonal": {
      const { thresholds: rule } = measures;
      return (
        `diagonal: the hottest key moves monotonically with time (rank correlation ${measures.correlation.toFixed(2)}, ` +
        `|≥ ${rule.minCorrelation}|), across ${percent(measures.travel)} of the key space (≥ ${percent(rule.minTravel)}), with a ` +
        `median ${percent(measures.concentration)} of each column's load within ±${percent(rule.window)} of it (≥ ${percent(rule.minConcentration)})`
      );
    }
    case "periodic": {
      const { thresholds: rule } = measures;
      return (
        `periodic: ${measures.bursts} bursts (≥ ${rule.minPeriodicEvents}) of columns ≥ ${rule.minColumnRatio}× the median ` +
        `column load, start spacing varies ${percent(measures.spacingVariation)} (≤ ${percent(rule.maxSpacingVariation)}); ` +
        `bursts land on ${percent(measures.keyShare)} of the key space`
      );
    }
    case "vertical-band": {
      const { thresholds: rule } = measures;
      return (
        `vertical band: column load ≥ ${rule.minColumnRatio}× the median column, raised on ${percent(measures.keyShare)} ` +
        `of the key space (≥ ${percent(rule.minFullHeight)})`
      );
    }
    case "sudden-hot-range": {
      const { thresholds: rule } = measures;
      return (
        `sudden: after being quiet, the range's load rose ≥ ${rule.minRatio}× and stayed up in ≥ ` +
        `${percent(rule.minSustained)} of later columns, carrying ${percent(measures.share)} of the load since (≥ ${percent(rule.minShare)})`
      );
    }
    case "saturated-range": {
      const { thresholds: rule } = measures;
      return (
        `saturated-range: rows on nodes at ≥ ${percent(rule.hotCpu)} CPU in ≥ ${percent(rule.minColumns)} of the ` +
        `active columns, gaps of ≤ ${measures.maxGapRows} rows joined, while no band carries ≥ ${rule.bandMinContrast}× ` +
        `the rest's load per key`
      );
    }
    case "saturated-cluster": {
      const { thresholds: rule, otherCpu } = measures;
      return (
        `saturated-cluster: ranges covering ${percent(measures.keyShare)} of the key space (≥ ${percent(rule.minKeyShare)}) ` +
        `sat on nodes at ≥ ${percent(rule.hotCpu)} CPU in ≥ ${percent(rule.minColumns)} of the active columns, the rest's nodes at ` +
        `${otherCpu === undefined ? "none" : `a median ${percent(otherCpu)}`} (≥ ${percent(rule.minOtherCpu)})`
      );
    }
    case "healthy": {
      const { thresholds: rule } = measures;
      return (
        `healthy: the hottest ${percent(measures.keyShare)} of the key space carries ${percent(measures.share)} of the load ` +
        `(≤ ${percent(rule.maxTopShare)}), its load per key is ${measures.densityRatio.toFixed(1)}× that of the coldest 10 % ` +
        `(≤ ${rule.maxDensityRatio}×), and no other pattern fired`
      );
    }
  }
}
