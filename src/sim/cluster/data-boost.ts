/**
 * A scan served by Data Boost: it costs the cluster nothing, and its serverless compute is the
 * node-seconds the same ranges would cost a node, in SPUs (1,000 SPUs = one node's performance),
 * each request billed at least 60 SPU-seconds (data-boost-limits.ts). The node-seconds come from
 * the cluster's own cost model, so a scan costs the same work on either side; only who pays differs.
 */

import { MIN_SPU_SECONDS_PER_REQUEST, SPUS_PER_NODE } from "../scenario/data-boost-limits.js";
import { type CostModel, rangeReadCost } from "./cluster.js";

/** What one pattern of reads asks of Data Boost. */
export interface DataBoostRead {
  name: string;
  perS: number;
  /** Requests (key ranges) per read. */
  fanout: number;
  rowsReadPerRead: number;
  bytesReadPerRead: number;
  /** Node-seconds one read would cost the cluster if it were served there. */
  nodeSecondsPerRead: number;
  /** SPU-seconds one read is billed: its node-seconds in SPUs, each request at least the minimum. */
  spuSecondsPerRead: number;
  /** SPUs in use on average (SPU-seconds per second): × hours gives SPU-hours. */
  averageSpus: number;
}

export interface ReadDemandShape {
  name: string;
  perS: number;
  fanout: number;
  rowsReadPerRead: number;
  rowBytes: number;
}

export function dataBoostRead(read: ReadDemandShape, cost: CostModel): DataBoostRead {
  const fanout = Math.max(1, read.fanout);
  const rowsPerRange = read.rowsReadPerRead / fanout;
  const perRange = rangeReadCost(rowsPerRange, read.rowBytes, cost);
  const spuSecondsPerRead = fanout * Math.max(MIN_SPU_SECONDS_PER_REQUEST, perRange * SPUS_PER_NODE);
  return {
    name: read.name,
    perS: read.perS,
    fanout,
    rowsReadPerRead: read.rowsReadPerRead,
    bytesReadPerRead: read.rowsReadPerRead * read.rowBytes,
    nodeSecondsPerRead: fanout * perRange,
    spuSecondsPerRead,
    averageSpus: read.perS * spuSecondsPerRead,
  };
}
