/**
 * `keyspread migrate plan`'s sizing: with `--nodes`, the live table is measured (SampleRowKeys on
 * Bigtable, no scan: its byte offsets for the bytes, the first 1,000 rows for the bytes a row
 * holds unless the user states it; an embedded table, local and small, is counted) and the
 * migration sized (src/migrate/sizing): how long the backfill takes, on how many nodes, what
 * dual-write does to the cluster and what the migration costs.
 */
import type { Command } from "commander";
import { sampleRowKeys } from "../../diagnose/gather/bigtable-sample.js";
import { importOptionalPackage } from "../../io/optional-package.js";
import { type MigrationSizing, sizeMigration } from "../../migrate/sizing/migration-sizing.js";
import { listPrice, SIZING_CONSTANTS } from "../../migrate/sizing/sizing-constants.js";
import { sizingReport } from "../../migrate/sizing/sizing-report.js";
import { type TableVolume, volumeFromSamples } from "../../migrate/sizing/table-volume.js";
import type { Storage } from "../../sim/scenario/scenario.js";
import { resolveConfig } from "../../store/bigtable/bigtable.js";
import { openStoreAt, type StoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import { rowBytes as cellBytes } from "../../table/table-scan.js";
import { argumentOf, parsePositiveInt, wholeNumberIn } from "../shared/io.js";

export interface PlanSizingOptions {
  nodes?: number;
  writesPerS?: number;
  cpu?: number;
  tasks: number;
  storage: Storage;
  dataBoost?: boolean;
  rowBytes?: number;
  pricePerNodeHour?: number;
  pricePerGbMonth?: number;
}

const share = (text: string) => {
  const value = text.endsWith("%") ? Number(text.slice(0, -1)) / 100 : Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 2)
    throw new Error(`--cpu "${text}" is not a share of CPU (0.45 or 45%)`);
  return value;
};
const positive = (flag: string) => (text: string) => {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${flag} "${text}" is not a number > 0`);
  return value;
};
const storageOf = (text: string): Storage => {
  if (text !== "ssd" && text !== "hdd") throw new Error(`--storage "${text}" is not ssd or hdd`);
  return text;
};

export function withSizingOptions(command: Command): Command {
  return command
    .option(
      "--nodes <n>",
      "size the migration for the old table's cluster of N nodes (measures the table; no scan)",
      wholeNumberIn(1, 10_000),
    )
    .option(
      "--writes-per-s <rows/s>",
      "--nodes: rows/s the app writes (dual-write applies each twice)",
      positive("--writes-per-s"),
      0,
    )
    .option(
      "--cpu <share>",
      "--nodes: the cluster's average CPU today, e.g. 0.45 or 45% (default: the live writes' alone)",
      share,
    )
    .option("--tasks <n>", "--nodes: backfill tasks (keyspread migrate job)", wholeNumberIn(1, 10_000), 8)
    .option("--storage <type>", "--nodes: ssd or hdd", argumentOf(storageOf), "ssd" as Storage)
    .option("--data-boost", "--nodes: the backfill reads through a Data Boost app profile (no cluster CPU)")
    .option(
      "--row-bytes <bytes>",
      "--nodes: bytes a row stores (default: measured on the first 1,000 rows)",
      parsePositiveInt,
    )
    .option(
      "--price-per-node-hour <usd>",
      "--nodes: node price (default us-central1 list)",
      positive("--price-per-node-hour"),
    )
    .option(
      "--price-per-gb-month <usd>",
      "--nodes: storage price per GiB-month (default us-central1 list)",
      positive("--price-per-gb-month"),
    );
}

export interface PlanSizing {
  volume: MeasuredVolume;
  sizing: MigrationSizing;
  lines: string[];
}

/** The list prices the lab uses when a scenario sets none (the price registry's defaults). */
function listPrices() {
  return {
    pricePerNodeHour: listPrice("bigtable.nodeHour"),
    pricePerSsdGbMonth: listPrice("bigtable.ssdGiBMonth"),
    pricePerHddGbMonth: listPrice("bigtable.hddGiBMonth"),
  };
}

/** The sizing for `plan`, or undefined without `--nodes`. */
export async function planSizing(
  from: StoreAddress,
  options: PlanSizingOptions & { rate?: number; retentionDays: number },
): Promise<PlanSizing | undefined> {
  if (options.nodes === undefined) return undefined;
  const store = await openStoreAt(from, { mustExist: true });
  let volume: MeasuredVolume;
  try {
    volume = await measureTable(
      from,
      store,
      options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes },
    );
  } finally {
    await store.close();
  }
  const prices = listPrices();
  const rowsPerSPerTask = options.rate ?? SIZING_CONSTANTS.rowsPerSPerTask.value;
  const dataBoost = options.dataBoost === true;
  const sizing = sizeMigration({
    rows: volume.rows,
    storedBytes: volume.storedBytes,
    cluster: {
      nodes: options.nodes,
      storage: options.storage,
      ...(options.cpu === undefined ? {} : { averageCpu: options.cpu }),
      pricePerNodeHour: options.pricePerNodeHour ?? prices.pricePerNodeHour,
      pricePerGbMonth:
        options.pricePerGbMonth ??
        (options.storage === "ssd" ? prices.pricePerSsdGbMonth : prices.pricePerHddGbMonth),
    },
    liveWritesPerS: options.writesPerS ?? 0,
    tasks: options.tasks,
    rowsPerSPerTask,
    dataBoost,
    keepOldTableS: options.retentionDays * 86_400,
  });
  return {
    volume,
    sizing,
    lines: sizingReport(sizing, {
      volume,
      tasks: options.tasks,
      rowsPerSPerTask,
      dataBoost,
      nodes: options.nodes,
    }),
  };
}

export interface MeasuredVolume extends TableVolume {
  rowBytes: number;
  rowBytesBasis: "given" | "sampled";
}

/** Rows read to learn the bytes a row holds. */
const SAMPLE_ROWS = 1_000;

export async function measureTable(
  address: StoreAddress,
  store: Store,
  options: { rowBytes?: number } = {},
): Promise<MeasuredVolume> {
  const sampled = options.rowBytes ?? (await meanRowBytes(store));
  const rowBytesBasis = options.rowBytes === undefined ? "sampled" : "given";
  if (address.kind === "embedded") {
    let rows = 0;
    let bytes = 0;
    for await (const row of store.read([{ start: Buffer.alloc(0), end: null }])) {
      rows++;
      bytes += row.key.length + cellBytes(row.cells);
    }
    return {
      rows,
      storedBytes: bytes,
      basis: "scan",
      rowBytes: rows === 0 ? sampled : bytes / rows,
      rowBytesBasis,
    };
  }
  const config = resolveConfig({
    tableId: address.table,
    ...(address.projectId === undefined ? {} : { projectId: address.projectId }),
    ...(address.instanceId === undefined ? {} : { instanceId: address.instanceId }),
  });
  const { Bigtable } = await importOptionalPackage(
    "@google-cloud/bigtable",
    () => import("@google-cloud/bigtable"),
  );
  if (config.onEmulator) process.env.METADATA_SERVER_DETECTION ??= "none";
  const client = new Bigtable({
    projectId: config.projectId,
    ...(config.onEmulator ? { metricsEnabled: false } : {}),
  });
  try {
    const samples = await sampleRowKeys(client.instance(config.instanceId).table(config.tableId));
    return { ...volumeFromSamples(samples, sampled), rowBytes: sampled, rowBytesBasis };
  } finally {
    await client.close();
  }
}

/** The mean bytes (key, qualifiers, values) of the table's first rows; 1 KB, Google's reference row, for an empty table. */
async function meanRowBytes(store: Store): Promise<number> {
  let rows = 0;
  let bytes = 0;
  for await (const row of store.read([{ start: Buffer.alloc(0), end: null }], { limit: SAMPLE_ROWS })) {
    rows++;
    bytes += row.key.length + cellBytes(row.cells);
  }
  return rows === 0 ? 1024 : bytes / rows;
}
