/**
 * The constants the migration's sizing adds to the lab's (model-constants.ts: a node's write and
 * scan rates, the storage limit and target; summary.ts: Google's 70 % average CPU): each sourced,
 * or an assumption with its range, in the same form.
 */
import { MissingPriceError, type PriceId, priceRecord } from "../../advise/size/prices.js";
import type { ModelConstant } from "../../sim/cluster/model-constants.js";
import { SPUS_PER_NODE } from "../../sim/scenario/data-boost-limits.js";

/** A list price from the price registry; a MissingPriceError when it has none. */
export function listPrice(id: PriceId): number {
  const record = priceRecord(id);
  if (record.value === null) throw new MissingPriceError(id, record.scenarioField, record.unit);
  return record.value;
}

/** The registry's Data Boost price, an assumption with its range. */
function spuHourPrice() {
  const id = "bigtable.dataBoostSpuHour";
  const { assumption, source, read } = priceRecord(id);
  if (assumption === undefined)
    throw new Error(`price ${id}: the registry holds it as an assumption with a range`);
  return { value: listPrice(id), assumption, source, read };
}

const SPU_HOUR = spuHourPrice();

const DATA_BOOST =
  'Google Cloud, "Bigtable Data Boost overview" (https://cloud.google.com/bigtable/docs/data-boost-overview)';

export const SIZING_CONSTANTS = {
  rowsPerSPerTask: {
    field: "--rate",
    unit: "rows/s one backfill task copies when nothing else bounds it",
    value: 20_000,
    low: 5_000,
    high: 100_000,
    worse: "low",
    basis: "assumption",
    source:
      "measured here: one process copies 23,600 rows/s on Google's emulator on a 2-core machine (npm run bench:backfill); docs/migrate.md estimates ~100,000 rows/s against a real instance from a larger machine; 5,000 for a small container. Set --rate to your own measurement",
  },
  spuPerNode: {
    field: "dataBoost.spuPerNode",
    unit: "Data Boost serverless processing units that perform like one node",
    value: SPUS_PER_NODE,
    low: SPUS_PER_NODE,
    high: SPUS_PER_NODE,
    worse: "high",
    basis: "sourced",
    source: `${DATA_BOOST}: usage is measured in serverless processing units (SPUs); "1,000 SPUs equal one node" in performance`,
  },
  pricePerSpuHour: {
    field: "--data-boost-spu-hour-price",
    unit: "USD per SPU-hour",
    // The price registry's record (advise/size/prices.ts): one assumption for the lab and the migration.
    value: SPU_HOUR.value,
    low: SPU_HOUR.assumption.low,
    high: SPU_HOUR.assumption.high,
    worse: "high",
    basis: "assumption",
    source: `${SPU_HOUR.source} (read ${SPU_HOUR.read}): ${SPU_HOUR.assumption.why}. Set your region's price`,
  },
} satisfies Record<string, ModelConstant>;
