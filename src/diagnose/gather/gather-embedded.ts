/**
 * Gathers an embedded table's evidence: no tablets and no hot-tablet API, so the heat comes from
 * its access log (two streaming passes) and the key sample from the store's even key sample.
 */
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { SCHEMA_ROW_KEY } from "../../table/schema-guard.js";
import { scanAccessLog } from "../../viz/input/access-log.js";
import type { TableEvidence } from "../diagnosis/diagnose.js";
import { AccessHeat, accessHeatLayout } from "./access-log-heat.js";

export interface EmbeddedDiagnoseSource {
  table: string;
  /** Parent directory of the embedded tables (default `./.keyspread`). */
  directory?: string;
  /** The table's access log (JSONL or CSV, as `heatmap` and `replay` read). */
  accessLog: string;
  /** Keys of the sample at most. */
  sample: number;
}

/** Keys kept from the log's first pass to place the slices (a reservoir: bounded memory). */
const LAYOUT_KEYS = 4096;

export async function gatherEmbedded(source: EmbeddedDiagnoseSource): Promise<TableEvidence> {
  const reservoir: Buffer[] = [];
  let seen = 0;
  let [startMs, endMs] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  // Deterministic reservoir: the same log always gives the same slices.
  let state = 0x2545f491;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const heat = await scanAccessLog(
    source.accessLog,
    {},
    (record) => {
      startMs = Math.min(startMs, record.tsMs);
      endMs = Math.max(endMs, record.tsMs);
      seen++;
      if (reservoir.length < LAYOUT_KEYS) reservoir.push(record.key);
      else {
        const at = Math.floor(random() * seen);
        if (at < LAYOUT_KEYS) reservoir[at] = record.key;
      }
    },
    () => new AccessHeat(accessHeatLayout(reservoir, startMs, endMs)),
  );
  const store = await EmbeddedStore.open({
    table: source.table,
    mustExist: true,
    ...(source.directory === undefined ? {} : { directory: source.directory }),
  });
  try {
    const schemaRow = await store.get(SCHEMA_ROW_KEY);
    const schemaFingerprint = schemaRow?.cells.get("fingerprint")?.toString();
    return {
      store: "embedded",
      table: source.table,
      heat: { kind: "access-log", records: heat.records },
      hotTablets: heat.hotTablets(source.table),
      keySample: await store.sampleKeys(source.sample),
      ...(schemaFingerprint === undefined ? {} : { schemaFingerprint }),
    };
  } finally {
    await store.close();
  }
}
