/**
 * Every price the lab uses, each with its value, unit, source page and the date it was read. A
 * scenario's own price overrides the default (`cluster.price*` for Bigtable, `prices.*` for the
 * analytical side), and the report lists which were used and where each came from.
 *
 * Where Google's page gives no figure the lab could read (its price tables render per region), the
 * price is an assumption with a low/high range, or has no default at all: then the choice that
 * needs it is reported unpriced, naming the field to set. A new price is one more record here.
 */
import { BIGTABLE_LIST_PRICES, type Scenario } from "../../sim/scenario/scenario.js";

export type PriceId =
  | "bigtable.nodeHour"
  | "bigtable.ssdGiBMonth"
  | "bigtable.hddGiBMonth"
  | "bigtable.infrequentGiBMonth"
  | "bigtable.dataBoostSpuHour"
  | "bigquery.activeLogicalGiBMonth"
  | "bigquery.onDemandTiB"
  | "dataflow.changeStreamJobMonth";

export interface Price {
  id: PriceId;
  /** USD per `unit`; null when nothing was published that the lab could read and no assumption is made. */
  value: number | null;
  unit: string;
  /** The page the value was read from. */
  source: string;
  /** When it was read (ISO date). */
  read: string;
  /** Where a scenario sets its own. */
  scenarioField: string;
  /** A value not published as such: its plausible range. */
  assumption?: { low: number; high: number; why: string };
  note?: string;
}

const BIGTABLE_PRICING = "https://cloud.google.com/bigtable/pricing";
const BIGQUERY_PRICING = "https://cloud.google.com/bigquery/pricing";
const READ = "2026-12-03";

/** Every price by its id: each id has its record. */
const PRICE_BY_ID: { readonly [Id in PriceId]: Price & { id: Id } } = {
  "bigtable.nodeHour": {
    id: "bigtable.nodeHour",
    value: BIGTABLE_LIST_PRICES.nodeHour,
    unit: "USD per node-hour",
    source: BIGTABLE_PRICING,
    read: READ,
    scenarioField: "cluster.pricePerNodeHour",
    note: "us-central1 list price; billed each hour at the hour's most nodes",
  },
  "bigtable.ssdGiBMonth": {
    id: "bigtable.ssdGiBMonth",
    value: BIGTABLE_LIST_PRICES.ssdGiBMonth,
    unit: "USD per GiB-month (SSD)",
    source: BIGTABLE_PRICING,
    read: READ,
    scenarioField: "cluster.pricePerSsdGbMonth",
    note: "us-central1; storage billed on the monthly average of compressed bytes, GB meaning GiB",
  },
  "bigtable.hddGiBMonth": {
    id: "bigtable.hddGiBMonth",
    value: BIGTABLE_LIST_PRICES.hddGiBMonth,
    unit: "USD per GiB-month (HDD)",
    source: BIGTABLE_PRICING,
    read: READ,
    scenarioField: "cluster.pricePerHddGbMonth",
    note: "us-central1",
  },
  "bigtable.infrequentGiBMonth": {
    id: "bigtable.infrequentGiBMonth",
    value: BIGTABLE_LIST_PRICES.hddGiBMonth,
    unit: "USD per GiB-month (tiered storage, infrequent-access tier)",
    source: BIGTABLE_PRICING,
    read: READ,
    scenarioField: "cluster.pricePerInfrequentGbMonth",
    assumption: {
      low: 0.01,
      high: BIGTABLE_LIST_PRICES.hddGiBMonth,
      why: "the copy of Google's page read names the tier (Preview) but renders no figure; the default is the HDD rate, the cold tier's own medium, as its upper bound",
    },
  },
  "bigtable.dataBoostSpuHour": {
    id: "bigtable.dataBoostSpuHour",
    value: 0.00065,
    unit: "USD per SPU-hour",
    source: BIGTABLE_PRICING,
    read: READ,
    scenarioField: "prices.dataBoostSpuHour",
    assumption: {
      low: 0.00065,
      high: 0.0013,
      why: "the page renders the rate per region and the copy read gives none (Data Boost was free in its Preview); 1,000 SPUs perform like a node (Bigtable Data Boost overview), so a node-hour's $0.65 is $0.00065 an SPU-hour at par, up to twice that for serverless compute",
    },
  },
  "bigquery.activeLogicalGiBMonth": {
    id: "bigquery.activeLogicalGiBMonth",
    value: 0.02,
    unit: "USD per GiB-month (active logical storage)",
    source: BIGQUERY_PRICING,
    read: READ,
    scenarioField: "prices.bigQueryStorageGiBMonth",
    note: "an earlier copy of Google's page: storage $0.020 per GB a month; logical (uncompressed) bytes, long-term storage half that after 90 days unmodified",
  },
  "bigquery.onDemandTiB": {
    id: "bigquery.onDemandTiB",
    value: 6.25,
    unit: "USD per TiB scanned (on-demand)",
    source: BIGQUERY_PRICING,
    read: READ,
    scenarioField: "prices.bigQueryScanTiB",
    note: "on-demand compute is billed per TiB of bytes processed, at least 10 MB per table a query reads; the copy of Google's page read renders the rate per region, $6.25 is the US rate summarised from it (2025); the first TiB a month is free and not counted here",
  },
  "dataflow.changeStreamJobMonth": {
    id: "dataflow.changeStreamJobMonth",
    value: null,
    unit: "USD per month for the change-streams-to-BigQuery Dataflow job",
    source: "https://cloud.google.com/dataflow/pricing",
    read: READ,
    scenarioField: "prices.dataflowJobMonth",
    note: "billed per second of worker vCPU, memory and Streaming Engine data; what a job needs depends on its throughput, which Google advises measuring on a small load (Google Cloud blog, 'Predicting the cost of a Dataflow job'): set your measured monthly cost",
  },
};

export const PRICES: readonly Price[] = Object.values(PRICE_BY_ID);

/** What a scenario sets for each price, if it does. */
const SCENARIO_VALUE: Record<PriceId, (scenario: Scenario) => number | undefined> = {
  "bigtable.nodeHour": (s) => s.cluster.pricePerNodeHour,
  "bigtable.ssdGiBMonth": (s) => s.cluster.pricePerSsdGbMonth,
  "bigtable.hddGiBMonth": (s) => s.cluster.pricePerHddGbMonth,
  "bigtable.infrequentGiBMonth": (s) => s.cluster.pricePerInfrequentGbMonth,
  "bigtable.dataBoostSpuHour": (s) => s.prices?.dataBoostSpuHour,
  "bigquery.activeLogicalGiBMonth": (s) => s.prices?.bigQueryStorageGiBMonth,
  "bigquery.onDemandTiB": (s) => s.prices?.bigQueryScanTiB,
  "dataflow.changeStreamJobMonth": (s) => s.prices?.dataflowJobMonth,
};

/** A price as one run used it: the scenario's, the default (sourced or an assumption), or missing. */
export interface PriceUsed {
  id: PriceId;
  value: number | null;
  unit: string;
  origin: "scenario" | "default" | "missing";
  /** Only for a default: it is an assumption with this range. */
  assumption?: { low: number; high: number };
  source: string;
  read: string;
  scenarioField: string;
}

export function priceRecord(id: PriceId): Price {
  return PRICE_BY_ID[id];
}

export function priceUsed(scenario: Scenario, id: PriceId): PriceUsed {
  const record = priceRecord(id);
  const set = SCENARIO_VALUE[id](scenario);
  const base = { id, unit: record.unit, source: record.source, read: record.read };
  if (set !== undefined)
    return { ...base, value: set, origin: "scenario", scenarioField: record.scenarioField };
  return {
    ...base,
    value: record.value,
    origin: record.value === null ? "missing" : "default",
    scenarioField: record.scenarioField,
    ...(record.assumption && record.value !== null
      ? { assumption: { low: record.assumption.low, high: record.assumption.high } }
      : {}),
  };
}

/** Every price in the registry as the scenario resolves it. */
export function pricesUsed(scenario: Scenario): PriceUsed[] {
  return PRICES.map((price) => priceUsed(scenario, price.id));
}

/** A price the run needs has no default and the scenario sets none. */
export class MissingPriceError extends Error {
  override name = "MissingPriceError";
  constructor(
    readonly id: PriceId,
    readonly scenarioField: string,
    unit: string,
  ) {
    super(
      `no price for ${id} (${unit}): Google publishes no figure the lab could read; set ${scenarioField} in the scenario`,
    );
  }
}

/** The price's value; a MissingPriceError when it has no default and the scenario sets none. */
export function price(scenario: Scenario, id: PriceId): number {
  const used = priceUsed(scenario, id);
  if (used.value === null) throw new MissingPriceError(id, used.scenarioField, used.unit);
  return used.value;
}

/** The price's value, or null when it has none (the caller reports the choice unpriced). */
export function priceOrNull(scenario: Scenario, id: PriceId): number | null {
  return priceUsed(scenario, id).value;
}
