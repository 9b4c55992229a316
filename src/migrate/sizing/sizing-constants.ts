/**
 * The constants the migration's sizing adds to the lab's (model-constants.ts: a node's write and
 * scan rates, the storage limit and target; summary.ts: Google's 70 % average CPU): each sourced,
 * or an assumption with its range, in the same form.
 */
import type { ModelConstant } from "../../sim/cluster/model-constants.js";

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
    value: 1_000,
    low: 1_000,
    high: 1_000,
    worse: "high",
    basis: "sourced",
    source: `${DATA_BOOST}: usage is measured in serverless processing units (SPUs); "1,000 SPUs equal one node" in performance`,
  },
  pricePerSpuHour: {
    field: "--data-boost-spu-hour-price",
    unit: "USD per SPU-hour",
    value: 0.00065,
    low: 0.00065,
    high: 0.0013,
    worse: "high",
    basis: "assumption",
    source: `the price is on Google's "Bigtable pricing" page (https://cloud.google.com/bigtable/pricing) by region; the copy we could read gives none. 1,000 SPUs perform like a node (${DATA_BOOST}), so a node's $0.65 an hour is $0.00065 an SPU-hour at par; up to twice that for serverless compute. Set your region's price`,
  },
} satisfies Record<string, ModelConstant>;
