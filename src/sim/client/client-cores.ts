/**
 * The application cores a design's declared reads need on the client: salting moves work to the
 * client, a call per bucket for a limit-bound read. A read costs the client
 * calls × CPU per call + rows read × CPU per row; its cores are that times its rate.
 *
 * Calls per read follow the table client (src/table): a limit-bound read (`latest`) makes one call
 * per range it touches (per-bucket limits need per-bucket calls); a bounded read (a `scan` window,
 * a `get`) is one call carrying all its ranges, one more per `MAX_ROW_RANGES_PER_REQUEST` ranges.
 */
import { MAX_ROW_RANGES_PER_REQUEST } from "../../store/bigtable/row-set-chunks.js";
import { bucketShare } from "../../table/bucket-share.js";
import { type ModelEnd, valueAt } from "../cluster/model-constants.js";
import type { ReadSummary } from "../engine/measurements.js";
import { CLIENT_CONSTANTS } from "./client-constants.js";

/** A read as the simulator summarises it: its rate, fan-out, rows the cluster reads and rows it returns. */
export type ClientRead = Pick<
  ReadSummary,
  "name" | "kind" | "perS" | "fanout" | "rowsReadPerRead" | "rowsReturnedPerRead"
>;

/**
 * Rows the client receives per read: a limit-bound read over several buckets asks each for its
 * share of the limit in its first round (src/table/bucket-share.ts: 16 rows per bucket at
 * latest-100 over 16 buckets, 9 over 64), so it receives the buckets × the share, not the limit.
 */
export function clientRowsPerRead(read: ClientRead): number {
  if (read.kind !== "latest" || read.fanout <= 1 || read.rowsReturnedPerRead <= 0)
    return read.rowsReadPerRead;
  const buckets = Math.round(read.fanout);
  const firstRound = buckets * bucketShare(Math.ceil(read.rowsReturnedPerRead), buckets);
  return Math.max(read.rowsReadPerRead, firstRound);
}

export interface ClientReadCost {
  name: string;
  /** ReadRows calls per read. */
  callsPerRead: number;
  /** Rows the client receives per read. */
  rowsPerRead: number;
  cpuMsPerRead: number;
  cores: number;
}

export interface ClientCores {
  /** Application cores (of the machine the constants were measured on) all declared reads need. */
  cores: number;
  reads: ClientReadCost[];
  /** The constants used, at the run's end of their ranges. */
  cpuMsPerCall: number;
  cpuUsPerRow: number;
}

/** Overrides of the constants, when the scenario measured its own application. */
export interface ClientCostOverrides {
  cpuMsPerCall?: number;
  cpuUsPerRow?: number;
}

export function callsPerRead(kind: ClientRead["kind"], fanout: number): number {
  if (fanout <= 0) return 0;
  return kind === "latest" ? fanout : Math.ceil(fanout / MAX_ROW_RANGES_PER_REQUEST);
}

export function clientCores(
  reads: readonly ClientRead[],
  end: ModelEnd = "default",
  overrides: ClientCostOverrides = {},
): ClientCores {
  const cpuMsPerCall = valueAt(CLIENT_CONSTANTS.clientCpuMsPerCall, end, overrides.cpuMsPerCall);
  const cpuUsPerRow = valueAt(CLIENT_CONSTANTS.clientCpuUsPerRow, end, overrides.cpuUsPerRow);
  const costs = reads.map((read): ClientReadCost => {
    const calls = callsPerRead(read.kind, read.fanout);
    const rows = clientRowsPerRead(read);
    const cpuMsPerRead = calls * cpuMsPerCall + (rows * cpuUsPerRow) / 1000;
    return {
      name: read.name,
      callsPerRead: calls,
      rowsPerRead: rows,
      cpuMsPerRead,
      cores: (read.perS * cpuMsPerRead) / 1000,
    };
  });
  return {
    cores: costs.reduce((sum, cost) => sum + cost.cores, 0),
    reads: costs,
    cpuMsPerCall,
    cpuUsPerRow,
  };
}

/** One report line: the client cores of each named design's reads, and the constants they rest on. */
export function clientCoresLine(designs: readonly { name: string; clientCores: ClientCores }[]): string {
  const first = designs[0]?.clientCores;
  if (first === undefined) return "";
  const each = designs.map(({ name, clientCores }) => {
    const calls = clientCores.reads.map(
      (read) => `${read.name} ${read.callsPerRead} call${read.callsPerRead === 1 ? "" : "s"}`,
    );
    return `${name} ${clientCores.cores.toFixed(1)}${calls.length > 0 ? ` (${calls.join(", ")})` : ""}`;
  });
  return `Client cores the reads need (application cores of the machine bench:read measured: ${first.cpuMsPerCall} ms per call, ${first.cpuUsPerRow} µs per row): ${each.join(" · ")}.`;
}
