/**
 * The analytical scans' three ways off the cluster, in words (analytical-choices.ts), and the
 * prices they were priced at with where each came from (prices.ts).
 */
import { formatDuration } from "../../sim/scenario/duration.js";
import type { Advice } from "../judge/advise.js";
import type { AnalyticalChoices } from "../judge/analytical-choices.js";
import { dollars } from "../size/cost.js";
import type { PriceUsed } from "../size/prices.js";

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const nodes = (n: number) => `${n} node${n === 1 ? "" : "s"}`;
const listed = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

export function analyticalLines(advice: Advice): string[] {
  const choices = advice.analytical;
  if (!choices) return [];
  const scans = listed(choices.scans.map((scan) => `"${scan.name}"`));
  const storage = advice.storage.toUpperCase();
  const lines = [
    `The analytical scans (${scans}) can leave the cluster three ways, each priced with its analytical side:`,
    ...dataBoostLines(choices, storage, advice.pricesUsed),
    changeStreamsLine(choices),
    `Parquet files (keyspread export), keeping ${formatDuration(choices.parquet.keepS)} in Bigtable: ${nodes(choices.parquet.nodes)}, ${dollars(choices.parquet.costPerMonth)}/month for Bigtable; the files and the engine querying them run where the export runs (not priced).`,
    decisionLine(choices),
    `The BigQuery side: \`${choices.command}\` writes the external table (with a Data Boost app profile), the view that decodes the row key, and the change-streams template's parameters (docs/migrate.md, "The fleet's dashboards in BigQuery").`,
  ];
  return lines;
}

function dataBoostLines(choices: AnalyticalChoices, storage: string, prices: readonly PriceUsed[]): string[] {
  const boost = choices.dataBoost;
  // Only a stated staleness under Data Boost's ~35 minutes refuses it.
  const refusal = choices.scans.flatMap((scan) =>
    scan.dataBoostAllowed || scan.stalenessS === undefined
      ? []
      : [
          `Data Boost is not offered for "${scan.name}": its staleness ${formatDuration(scan.stalenessS)} is under the ~35 minutes Data Boost may not see.`,
        ],
  );
  if (!boost) return refusal;
  const spu = prices.find((each) => each.id === "bigtable.dataBoostSpuHour")!;
  const spuPrice =
    spu.origin === "default" && spu.assumption
      ? `at an assumed $${spu.value}/SPU-hour (range $${spu.assumption.low}–$${spu.assumption.high}; set prices.dataBoostSpuHour)`
      : `at $${spu.value}/SPU-hour`;
  const freed =
    boost.cpuNodesFreed > 0
      ? `the scans' ${boost.cpuNodesFreed.toFixed(2)} node of CPU leaves the cluster (CPU needs ${nodes(boost.cpuNodes)})`
      : `the scans already cost the cluster no CPU (CPU needs ${nodes(boost.cpuNodes)})`;
  return [
    `Data Boost (no copy; the data stays in Bigtable): ${freed}, but all ${formatDuration(choices.retentionS)} stay on ${boost.nodes} ${storage} nodes: ${dollars(boost.bigtable.total)} + ${count(boost.spuHoursPerMonth)} SPU-hours ${spuPrice}, ${dollars(boost.spuCost)} = ${dollars(boost.costPerMonth)}/month. It may miss data written in the last ~35 minutes, has no SLA and needs an Enterprise edition; mark the read \`dataBoost: true\`.`,
    ...refusal,
  ];
}

function changeStreamsLine(choices: AnalyticalChoices): string {
  const streams = choices.changeStreams;
  const job =
    streams.dataflowJobCost === null
      ? "the Dataflow job (unpriced: Google publishes no monthly figure, set prices.dataflowJobMonth to your measured cost)"
      : `the Dataflow job ${dollars(streams.dataflowJobCost)}`;
  const total =
    streams.costPerMonth === null
      ? `at least ${dollars(streams.pricedPerMonth)}/month`
      : `${dollars(streams.costPerMonth)}/month`;
  return `Change streams into BigQuery, keeping ${formatDuration(streams.keepS)} in Bigtable: ${nodes(streams.nodes)}, ${dollars(streams.bigtable.total)}; BigQuery stores ${count(streams.bigQueryStorageGiB)} GiB, ${dollars(streams.bigQueryStorageCost)}, and the scans read ${count(streams.bigQueryScannedTiBPerMonth)} TiB a month, ${dollars(streams.bigQueryScanCost)}; plus ${job}: ${total}.`;
}

/** When Data Boost, rather than a copy, is the way to take the scans off the cluster. */
function decisionLine(choices: AnalyticalChoices): string {
  const boost = choices.dataBoost;
  if (!boost)
    return "So the scans leave through a copy: change streams into BigQuery, or Parquet files for a sample or a laptop.";
  const boundByStorage = boost.storageNodes >= boost.cpuNodes;
  const why = boundByStorage
    ? `Data Boost takes the scans' CPU off the cluster, not their bytes: here the bytes kept (${formatDuration(choices.retentionS)}) size the cluster, and only keeping fewer days in Bigtable shrinks it.`
    : "Data Boost takes the scans' CPU off the cluster without copying a byte, and the cluster is sized by CPU.";
  switch (choices.cheapestPriced) {
    case "data-boost":
      return `So Data Boost is the cheaper way to take the scans off the cluster. ${why}`;
    case "change-streams":
      return `So change streams into BigQuery cost less than Data Boost${boost.breakEvenSpuHour === null ? " at any SPU price" : ` unless an SPU-hour costs under $${boost.breakEvenSpuHour.toPrecision(2)}`}. ${why}`;
    default:
      return `So change streams into BigQuery cost less than Data Boost (${dollars(boost.costPerMonth)}/month) unless the Dataflow job costs over ${dollars(boost.breakEvenJobMonth ?? 0)}/month. ${why}`;
  }
}

/** The prices used, each with where it came from; sources and dates are in docs/simulator.md. */
export function pricesUsedLine(prices: readonly PriceUsed[]): string {
  const each = prices.map((used) => {
    const origin =
      used.origin === "missing"
        ? `not set (${used.scenarioField})`
        : used.origin === "scenario"
          ? "the scenario's"
          : used.assumption
            ? "default, an assumption"
            : "default";
    return `${used.id} ${used.value === null ? "–" : `$${used.value}`} ${origin}`;
  });
  return `Prices (USD; defaults with source and date read in docs/simulator.md, "Prices"): ${each.join("; ")}.`;
}
