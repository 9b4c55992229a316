/**
 * Where the long scans go, three ways, each priced with its analytical side (issue 40):
 *
 * - **Data Boost** (no copy): the scans read Bigtable through a Data Boost app profile, so they cost
 *   the cluster no CPU and are billed in SPUs (1,000 SPUs = one node's performance); every byte
 *   stays in Bigtable, so a storage-bound table keeps its storage nodes. Only for scans whose
 *   freshness allows Data Boost's ~35 minutes (a scan stating no `staleness` is taken to allow it:
 *   an analytical scan over days does not hinge on its last half hour).
 * - **Change streams into BigQuery, keep less in Bigtable**: Google's Dataflow template streams every
 *   change into BigQuery; Bigtable keeps the window the other reads need (at least a day); BigQuery
 *   stores the whole retention as logical bytes and each dashboard query bills the bytes it reads
 *   (at least 10 MB; the table clustered by the entity, so a query reads its entity's rows — an
 *   assumption), and the Dataflow job runs all month.
 * - **Parquet files** (`keyspread export`): Bigtable as in the previous choice; the files and the
 *   engine querying them run where the export runs, not priced here.
 *
 * The scans' work comes from the simulator's cost model: a scan costs the same node-seconds on
 * either side, only who pays for them differs. Prices: prices.ts.
 */

import { type DataBoostRead, dataBoostRead } from "../../sim/cluster/data-boost.js";
import { resolveModel } from "../../sim/cluster/model.js";
import { DATA_BOOST_STALENESS_S, SPUS_PER_NODE } from "../../sim/scenario/data-boost-limits.js";
import type { ReadPattern, Scenario } from "../../sim/scenario/scenario.js";
import { HOURS_PER_MONTH, type MonthlyCost, monthlyCost } from "../size/cost.js";
import { priceOrNull } from "../size/prices.js";
import { type CpuTargets, cpuNodes, type StoragePlan, storageNodes, storedBytes } from "../size/sizing.js";
import { isAnalytical } from "./beyond-the-key.js";
import type { EvaluatedCandidate, JudgedCandidate } from "./recommend.js";
import { keptInBigtable } from "./storage-options.js";

const DAY_S = 86_400;
const GIB = 2 ** 30;
const TIB = 2 ** 40;
/** BigQuery bills at least 10 MB per table a query reads (on-demand; "BigQuery pricing"). */
const BIGQUERY_MIN_BYTES_PER_QUERY = 10 * 2 ** 20;
const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;

export type AnalyticalChoice = "data-boost" | "change-streams" | "parquet";

export interface AnalyticalScan {
  name: string;
  perS: number;
  windowS: number;
  /** The scenario already serves it through Data Boost (`dataBoost: true`). */
  onDataBoost: boolean;
  /** Its freshness allows Data Boost: no `staleness` stated, or at least ~35 minutes. */
  dataBoostAllowed: boolean;
  stalenessS?: number;
  /** What one scan reads, and what it costs whoever serves it. */
  demand: DataBoostRead;
}

export interface AnalyticalChoices {
  scans: AnalyticalScan[];
  /** How long rows are kept (what BigQuery or Bigtable must hold for the scans). */
  retentionS: number;
  /** Absent when no scan's freshness allows Data Boost. */
  dataBoost?: {
    /** Nodes with the allowed scans off the cluster: CPU without them, storage for the whole retention. */
    nodes: number;
    cpuNodes: number;
    storageNodes: number;
    /** Node-seconds per second the scans no longer cost the cluster. */
    cpuNodesFreed: number;
    bigtable: MonthlyCost;
    spuHoursPerMonth: number;
    spuCost: number;
    costPerMonth: number;
    /** The SPU-hour price below which this choice costs less than change streams; null when none does. */
    breakEvenSpuHour: number | null;
    /** The Dataflow job's monthly cost above which this choice costs less than change streams; null when none does. */
    breakEvenJobMonth: number | null;
  };
  changeStreams: {
    keepS: number;
    nodes: number;
    bigtable: MonthlyCost;
    bigQueryStorageGiB: number;
    bigQueryStorageCost: number;
    bigQueryScannedTiBPerMonth: number;
    bigQueryScanCost: number;
    /** Null when the scenario sets no price for the job (no published figure). */
    dataflowJobCost: number | null;
    /** Null with the job's cost. */
    costPerMonth: number | null;
    /** Without the job: what is priced. */
    pricedPerMonth: number;
  };
  parquet: {
    keepS: number;
    nodes: number;
    bigtable: MonthlyCost;
    /** Bigtable's side only: the files and their query engine run where the export runs. */
    costPerMonth: number;
  };
  /** The cheapest of the two priced with their analytical side; undefined when the unpriced job decides it. */
  cheapestPriced?: Exclude<AnalyticalChoice, "parquet">;
  /** The command that writes the BigQuery side (external table, decoding view, change-streams parameters). */
  command: string;
}

interface SizingPlan {
  targets: CpuTargets;
  growth: number;
  storagePlan: StoragePlan;
}

/** The three choices for the scenario's analytical scans; undefined when it has none or CPU cannot be sized. */
export function analyticalChoices(
  scenario: Scenario,
  evaluated: EvaluatedCandidate,
  plan: SizingPlan,
): AnalyticalChoices | undefined {
  if (evaluated.kind === "failed" || evaluated.sizing.atGrowth.cpu === null) return undefined;
  const cpuAtGrowth = evaluated.sizing.atGrowth.cpu;
  const retention = plan.storagePlan.retention;
  const scans = analyticalScans(scenario, evaluated);
  if (scans.length === 0 || !retention) return undefined;
  const { growth } = plan;
  const storage = plan.storagePlan.storage;
  const bytesPerS = evaluated.scores.bytesPerS;
  const moved = new Set(scans.map((scan) => scan.name));

  // Change streams and Parquet: every analytical scan leaves Bigtable, which keeps what the others need.
  const keepS = Math.min(
    retention.seconds,
    keptInBigtable(scenario, (read) => moved.has(read.name)),
  );
  const keptBytes = storedBytes(bytesPerS, keepS, plan.storagePlan, growth);
  const cpuWithout = cpuNodesWithout(evaluated, cpuAtGrowth, scans, plan);
  const keptNodes = Math.max(cpuWithout, storageNodes(keptBytes, plan.storagePlan));
  const keptBigtable = monthlyCost(scenario, keptNodes, storage, keptBytes);
  const logicalGiB = (bytesPerS * retention.seconds * growth) / GIB;
  const scannedTiB =
    scans.reduce(
      (sum, scan) =>
        sum +
        scan.perS *
          growth *
          SECONDS_PER_MONTH *
          Math.max(BIGQUERY_MIN_BYTES_PER_QUERY, scan.demand.bytesReadPerRead),
      0,
    ) / TIB;
  const bigQueryStorageCost = logicalGiB * (priceOrNull(scenario, "bigquery.activeLogicalGiBMonth") ?? 0);
  const bigQueryScanCost = scannedTiB * (priceOrNull(scenario, "bigquery.onDemandTiB") ?? 0);
  const dataflowJobCost = priceOrNull(scenario, "dataflow.changeStreamJobMonth");
  const pricedPerMonth = keptBigtable.total + bigQueryStorageCost + bigQueryScanCost;
  const changeStreams = {
    keepS,
    nodes: keptNodes,
    bigtable: keptBigtable,
    bigQueryStorageGiB: logicalGiB,
    bigQueryStorageCost,
    bigQueryScannedTiBPerMonth: scannedTiB,
    bigQueryScanCost,
    dataflowJobCost,
    costPerMonth: dataflowJobCost === null ? null : pricedPerMonth + dataflowJobCost,
    pricedPerMonth,
  };
  const dataBoost = dataBoostChoice(scenario, evaluated, cpuAtGrowth, scans, plan, changeStreams);
  return {
    scans,
    retentionS: retention.seconds,
    ...(dataBoost ? { dataBoost } : {}),
    changeStreams,
    parquet: { keepS, nodes: keptNodes, bigtable: keptBigtable, costPerMonth: keptBigtable.total },
    ...cheapest(dataBoost?.costPerMonth, changeStreams),
    command: "keyspread bigquery --schema <schema> --table <project>/<instance>/<table> --dataset <dataset>",
  };
}

/** Data Boost: the allowed scans off the cluster, every byte still kept in Bigtable. */
function dataBoostChoice(
  scenario: Scenario,
  evaluated: JudgedCandidate,
  cpuAtGrowth: number,
  scans: AnalyticalScan[],
  plan: SizingPlan,
  changeStreams: Pick<AnalyticalChoices["changeStreams"], "costPerMonth" | "pricedPerMonth">,
): AnalyticalChoices["dataBoost"] {
  const allowed = scans.filter((scan) => scan.dataBoostAllowed);
  if (allowed.length === 0) return undefined;
  const cpu = cpuNodesWithout(evaluated, cpuAtGrowth, allowed, plan);
  const { storage: storageNodesNeeded, storedBytes: bytes } = evaluated.sizing.atGrowth;
  const nodes = Math.max(cpu, storageNodesNeeded);
  const bigtable = monthlyCost(scenario, nodes, plan.storagePlan.storage, bytes);
  const spuHoursPerMonth =
    allowed.reduce((sum, scan) => sum + scan.demand.averageSpus, 0) * plan.growth * HOURS_PER_MONTH;
  const spuCost = spuHoursPerMonth * (priceOrNull(scenario, "bigtable.dataBoostSpuHour") ?? 0);
  const costPerMonth = bigtable.total + spuCost;
  const spuBreakEven =
    changeStreams.costPerMonth === null
      ? null
      : (changeStreams.costPerMonth - bigtable.total) / spuHoursPerMonth;
  const jobBreakEven = costPerMonth - changeStreams.pricedPerMonth;
  return {
    nodes,
    cpuNodes: cpu,
    storageNodes: storageNodesNeeded,
    cpuNodesFreed: onCluster(allowed),
    bigtable,
    spuHoursPerMonth,
    spuCost,
    costPerMonth,
    breakEvenSpuHour: spuBreakEven !== null && spuBreakEven > 0 ? spuBreakEven : null,
    breakEvenJobMonth: jobBreakEven > 0 ? jobBreakEven : null,
  };
}

function cheapest(
  dataBoost: number | undefined,
  changeStreams: AnalyticalChoices["changeStreams"],
): { cheapestPriced?: Exclude<AnalyticalChoice, "parquet"> } {
  if (dataBoost === undefined)
    return changeStreams.costPerMonth === null ? {} : { cheapestPriced: "change-streams" };
  // Without the job's price change streams cost at least what is priced.
  if (dataBoost <= changeStreams.pricedPerMonth) return { cheapestPriced: "data-boost" };
  if (changeStreams.costPerMonth === null) return {};
  return { cheapestPriced: changeStreams.costPerMonth < dataBoost ? "change-streams" : "data-boost" };
}

/** The scans that are analytical queries (a long window or many rows), or that the scenario serves through Data Boost. */
function analyticalScans(scenario: Scenario, evaluated: JudgedCandidate): AnalyticalScan[] {
  const { scores, result } = evaluated;
  const model = resolveModel(scenario, evaluated.candidate.design, "default").cost;
  const rowBytes = scores.bytesPerS / Math.max(scores.rowsPerDay / DAY_S, Number.MIN_VALUE);
  const onCluster = new Map(scores.reads.map((read) => [read.name, read]));
  const boosted = new Map((result.summary.dataBoostReads ?? []).map((read) => [read.name, read]));
  return scenario.workload.reads.flatMap((read): AnalyticalScan[] => {
    if (read.kind !== "scan") return [];
    const served = onCluster.get(read.name);
    const demand =
      boosted.get(read.name) ??
      (served &&
        dataBoostRead(
          {
            name: read.name,
            perS: read.perS,
            fanout: served.fanout,
            rowsReadPerRead: served.rowsReadPerRead,
            rowBytes,
          },
          model,
        ));
    if (!demand) return [];
    const onDataBoost = read.dataBoost === true;
    if (!onDataBoost && !isAnalytical(read.window, demand.rowsReadPerRead)) return [];
    return [
      {
        name: read.name,
        perS: read.perS,
        windowS: read.window,
        onDataBoost,
        dataBoostAllowed: allowsDataBoost(read),
        ...(read.staleness === undefined ? {} : { stalenessS: read.staleness }),
        demand,
      },
    ];
  });
}

/** A scan stating no staleness is taken to allow Data Boost's ~35 minutes (module comment). */
const allowsDataBoost = (read: Extract<ReadPattern, { kind: "scan" }>) =>
  read.staleness === undefined || read.staleness >= DATA_BOOST_STALENESS_S;

/** Node-seconds per second the scans cost the cluster where it still serves them. */
const onCluster = (scans: readonly AnalyticalScan[]) =>
  scans.reduce((sum, scan) => sum + (scan.onDataBoost ? 0 : scan.demand.averageSpus / SPUS_PER_NODE), 0);

/**
 * CPU nodes once `scans` no longer run on the cluster: their node-seconds taken off the average,
 * the hottest node lowered in the same proportion (a scan's ranges spread like the rest of the load);
 * `cpuAtGrowth` (its CPU nodes with the scans) when nothing is freed.
 */
function cpuNodesWithout(
  evaluated: JudgedCandidate,
  cpuAtGrowth: number,
  scans: readonly AnalyticalScan[],
  plan: SizingPlan,
): number {
  const { scores } = evaluated;
  const freed = onCluster(scans) / scores.nodes;
  if (freed <= 0 || scores.averageCpu <= 0) return cpuAtGrowth;
  const share = Math.max(0, scores.averageCpu - freed) / scores.averageCpu;
  const nodes = cpuNodes(
    { ...scores, averageCpu: scores.averageCpu * share, hottestCpu: scores.hottestCpu * share },
    plan.targets,
    plan.growth,
  );
  return nodes ?? cpuAtGrowth;
}
