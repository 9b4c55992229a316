/**
 * `diagnoseTable`: gather a live table's evidence and diagnose it. The store's client is imported
 * only here, when a table of that store is diagnosed, so importing `keyspread/diagnose` loads
 * neither gRPC nor LevelDB.
 */
import type { WorkloadRates } from "../advise/infer/rates.js";
import type { KeySchema } from "../keys/types.js";
import { type DiagnoseReport, diagnoseEvidence } from "./diagnosis/diagnose.js";
import type { BigtableDiagnoseSource } from "./gather/gather-bigtable.js";
import type { EmbeddedDiagnoseSource } from "./gather/gather-embedded.js";

interface Common {
  schema: KeySchema;
  /** `--rates` (as `advise --keys` takes them); without them the hot tablets imply a write rate. */
  rates?: WorkloadRates;
  /** Nodes for the scenario; on Bigtable default the cluster's. */
  nodes?: number;
  /** Default the cluster's (Bigtable), else SSD. */
  storage?: "ssd" | "hdd";
  /** Bytes per row: the scenario's, and on Bigtable the row sample's probability (default 1 KB). */
  rowBytes?: number;
  /** Read the evidence even with a schema that does not fit the table (diagnosis/refusal.ts). */
  force?: boolean;
}

export type DiagnoseTableOptions =
  | (Common & BigtableDiagnoseSource & { store: "bigtable" })
  | (Common & EmbeddedDiagnoseSource & { store: "embedded" });

export type DiagnoseNote =
  /** The embedded store has no hot-tablet API: the heat comes from the access log. */
  | "no-hot-tablet-api"
  /** The key sample's deadline stopped it early: fewer keys than asked. */
  | "sample-timed-out";

export interface DiagnoseTableResult {
  report: DiagnoseReport;
  notes: DiagnoseNote[];
}

export async function diagnoseTable(options: DiagnoseTableOptions): Promise<DiagnoseTableResult> {
  const { schema, rates } = options;
  if (options.store === "embedded") {
    const { gatherEmbedded } = await import("./gather/gather-embedded.js");
    const evidence = await gatherEmbedded(options);
    if (options.nodes === undefined)
      throw new Error("nodes is missing: an embedded table has no cluster to read it from (--nodes N)");
    return {
      report: diagnoseEvidence(schema, evidence, {
        ...(options.nodes === undefined ? {} : { nodes: options.nodes }),
        ...(rates ? { rates } : {}),
        ...(options.storage ? { storage: options.storage } : {}),
        ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
        ...(options.force ? { force: true } : {}),
      }),
      notes: ["no-hot-tablet-api"],
    };
  }
  const { gatherBigtable } = await import("./gather/gather-bigtable.js");
  const gathered = await gatherBigtable(options);
  const nodes = options.nodes ?? gathered.cluster?.nodes;
  if (nodes === undefined)
    throw new Error(
      "nodes is missing: with a recorded hot-tablets answer there is no cluster to read it from (--nodes N)",
    );
  const storage = options.storage ?? gathered.cluster?.storage;
  return {
    report: diagnoseEvidence(schema, gathered.evidence, {
      ...(nodes === undefined ? {} : { nodes }),
      ...(rates ? { rates } : {}),
      ...(storage ? { storage } : {}),
      ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
      ...(options.force ? { force: true } : {}),
    }),
    notes: gathered.sampleTimedOut ? ["sample-timed-out"] : [],
  };
}
