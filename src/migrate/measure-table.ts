/**
 * A live table's volume for the migration's sizing, without a scan: Bigtable's SampleRowKeys byte
 * offsets for its bytes, and the first rows (at most `sampleRows`) for the bytes a row holds —
 * unless the user states it. On the embedded store, the table is local and small: it is counted.
 */

import { sampleRowKeys } from "../diagnose/gather/bigtable-sample.js";
import { importOptionalPackage } from "../io/optional-package.js";
import { resolveConfig } from "../store/bigtable.js";
import type { Store } from "../store/store.js";
import type { StoreAddress } from "../store/store-address.js";
import { rowBytes as cellBytes } from "../table/table-scan.js";
import { type TableVolume, volumeFromSamples } from "./sizing/table-volume.js";

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
