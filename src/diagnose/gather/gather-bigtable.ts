/**
 * Gathers a Bigtable table's evidence: its cluster (checked, with nodes and storage), the hot
 * tablets of the look-back window (or a recorded answer), SampleRowKeys and a bounded row sample.
 * Loads the Bigtable client; the `keyspread/diagnose` entry imports this module only when used.
 */
import type { BigtableOptions, Table, v2 } from "@google-cloud/bigtable";
import { importOptionalPackage } from "../../io/optional-package.js";
import { resolveConfig } from "../../store/bigtable/bigtable.js";
import { SCHEMA_ROW_KEY } from "../../table/schema-guard.js";
import { type HotTablet, tabletsOfOtherTables } from "../decode/hot-tablet.js";
import type { TableEvidence } from "../diagnosis/diagnose.js";
import { sampleRowKeys, sampleRows } from "./bigtable-sample.js";
import { hotTabletWindows, type TimeWindow } from "./hot-tablet-windows.js";
import { type ClusterInfo, chooseCluster, listClusters, listHotTablets } from "./instance-admin.js";

export interface BigtableDiagnoseSource {
  tableId: string;
  /** Default KEYSPREAD_BIGTABLE_PROJECT (on the emulator `keyspread`). */
  projectId?: string;
  /** Default KEYSPREAD_BIGTABLE_INSTANCE (on the emulator `keyspread`). */
  instanceId?: string;
  /** The cluster whose hot tablets to list; may be left out when the instance has one. */
  cluster?: string;
  /** Look-back in seconds (at most 14 days). */
  sinceS: number;
  /** Rows of the key sample at most. */
  sample: number;
  /** The key sample stops reading after this long (default 30 s). */
  sampleTimeoutMs?: number;
  /** Bytes per row, for the sampling probability (default 1 KB). */
  rowBytes?: number;
  /** A recorded hot-tablets answer: the admin API is not called (nor needed: the emulator has none). */
  recordedHotTablets?: readonly HotTablet[];
  clientOptions?: BigtableOptions;
  /** Options of the instance admin client (endpoint, credentials). */
  adminOptions?: ConstructorParameters<typeof v2.BigtableInstanceAdminClient>[0];
  now?: Date;
}

export interface GatheredBigtable {
  evidence: TableEvidence;
  /** Undefined with a recorded answer (no admin call). */
  cluster: ClusterInfo | undefined;
  sampleTimedOut: boolean;
}

const DEFAULT_SAMPLE_TIMEOUT_MS = 30_000;

export async function gatherBigtable(source: BigtableDiagnoseSource): Promise<GatheredBigtable> {
  const config = resolveConfig(source);
  const { Bigtable, v2 } = await importOptionalPackage(
    "@google-cloud/bigtable",
    () => import("@google-cloud/bigtable"),
  );
  const now = source.now ?? new Date();
  const windows = hotTabletWindows(source.sinceS, now);
  const instanceName = `projects/${config.projectId}/instances/${config.instanceId}`;
  let cluster: ClusterInfo | undefined;
  let hotTablets: readonly HotTablet[];
  let otherTables: { table: string; tablets: number }[] = [];
  if (source.recordedHotTablets) {
    hotTablets = source.recordedHotTablets.filter((tablet) => tablet.table === config.tableId);
    otherTables = tabletsOfOtherTables(source.recordedHotTablets, config.tableId);
  } else {
    if (config.onEmulator)
      throw new Error(
        "the Bigtable emulator has no instance admin API (no hot tablets): pass a recorded ListHotTablets answer (--hot-tablets FILE)",
      );
    const admin = new v2.BigtableInstanceAdminClient({ projectId: config.projectId, ...source.adminOptions });
    try {
      cluster = chooseCluster(await listClusters(admin, instanceName), source.cluster);
      hotTablets = await listHotTablets(
        admin,
        `${instanceName}/clusters/${cluster.id}`,
        config.tableId,
        windows,
      );
    } finally {
      await admin.close();
    }
  }
  if (config.onEmulator) process.env.METADATA_SERVER_DETECTION ??= "none";
  const client = new Bigtable({
    projectId: config.projectId,
    ...(config.onEmulator ? { metricsEnabled: false } : {}),
    ...source.clientOptions,
  });
  try {
    const table = client.instance(config.instanceId).table(config.tableId);
    const schemaFingerprint = await recordedFingerprint(table);
    const rowKeySamples = await sampleRowKeys(table);
    const sample = await sampleRows(table, rowKeySamples, {
      count: source.sample,
      timeoutMs: source.sampleTimeoutMs ?? DEFAULT_SAMPLE_TIMEOUT_MS,
      ...(source.rowBytes === undefined ? {} : { rowBytes: source.rowBytes }),
    });
    return {
      evidence: {
        store: "bigtable",
        table: config.tableId,
        heat: {
          kind: "hot-tablets",
          cluster: cluster?.id ?? source.cluster ?? "(recorded)",
          ...recordedSpan(source.recordedHotTablets, { start: windows[0]!.start, end: now }),
          ...(otherTables.length ? { otherTables } : {}),
        },
        hotTablets,
        rowKeySamples,
        keySample: sample.keys,
        ...(schemaFingerprint === undefined ? {} : { schemaFingerprint }),
      },
      cluster,
      sampleTimedOut: sample.timedOut,
    };
  } finally {
    await client.close();
  }
}

/** A recorded answer covers its own tablets' times, not the look-back window. */
function recordedSpan(recorded: readonly HotTablet[] | undefined, window: TimeWindow): TimeWindow {
  if (!recorded?.length) return window;
  return {
    start: new Date(Math.min(...recorded.map((tablet) => tablet.startTime.getTime()))),
    end: new Date(Math.max(...recorded.map((tablet) => tablet.endTime.getTime()))),
  };
}

/** The fingerprint keyspread's schema row records (any column family), if the table has one. */
async function recordedFingerprint(table: Table): Promise<string | undefined> {
  const at = { value: SCHEMA_ROW_KEY, inclusive: true };
  const stream = table.createReadStream({ ranges: [{ start: at, end: at }], decode: false } as Parameters<
    Table["createReadStream"]
  >[0]);
  try {
    for await (const row of stream as AsyncIterable<{
      data: Record<string, Record<string, { value: Buffer }[]>>;
    }>)
      for (const family of Object.values(row.data))
        for (const [qualifier, cells] of Object.entries(family))
          if (qualifier === "fingerprint" && cells[0]) return Buffer.from(cells[0].value).toString();
  } catch (error) {
    throw new Error(`reading the schema row of ${table.id}: ${(error as Error).message}`);
  }
  return undefined;
}
