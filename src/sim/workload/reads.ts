/**
 * Read patterns planned by the design's schema: a read for one entity becomes the planner's ranges,
 * so salting over a field the read does not bind multiplies its ranges (its fan-out).
 */

import type { Query } from "../../keys/types.js";
import type { ReadPattern } from "../scenario/scenario.js";
import { scramble } from "../scenario/template.js";
import type { CompiledGroup } from "./workload.js";
import { rowsPerLogicalRow } from "./write-shard-keys.js";

export interface PlannedRead {
  /** Start keys of the ranges the read touches, one per range. */
  starts: Buffer[];
  /** Rows each range serves (a lazy merge stops each stream at its share of the limit). */
  rowsPerRange: number;
  rowsReturned: number;
}

export class CompiledRead {
  readonly name: string;
  readonly kind: ReadPattern["kind"];
  readonly perS: number;
  /** Served by Data Boost's serverless compute: no load on the cluster (data-boost.ts). */
  readonly dataBoost: boolean;

  constructor(
    private readonly read: ReadPattern,
    readonly group: CompiledGroup,
  ) {
    this.name = read.name;
    this.kind = read.kind;
    this.perS = read.perS;
    this.dataBoost = read.kind === "scan" && read.dataBoost === true;
    // A get names every field, so it is a point read whatever the key's order.
    if (read.kind !== "get") group.assertReadable(read);
    if (read.kind === "scan") group.timeFieldAfterPrefix(read);
  }

  /** The ranges one read of `entity` issued at `tS` touches; `serial` varies per-read choices. */
  plan(entity: number, tS: number, serial: number): PlannedRead {
    const { group, read } = this;
    const schema = group.schema;
    switch (read.kind) {
      case "latest": {
        // The user asks for the newest `limit` points; batched rows hold several, so fewer rows hold them.
        const rows = Math.ceil(read.limit / group.pointsPerRow - 1e-9);
        const { starts, shards } = this.starts(group.entityQueries(entity, { limit: rows }));
        return { starts, rowsPerRange: Math.ceil((rows * shards) / starts.length), rowsReturned: rows };
      }
      case "scan": {
        const field = group.timeFieldAfterPrefix(read);
        const range = { field, gte: group.timeValue(tS - read.window), lte: group.timeValue(tS) };
        const { starts, shards } = this.starts(group.entityQueries(entity, { range }));
        const rows = Math.max(1, group.rowsPerEntityPerS * read.window);
        return { starts, rowsPerRange: (rows * shards) / starts.length, rowsReturned: rows };
      }
      case "get": {
        const share = scramble(serial) / 2 ** 32;
        const plan = schema.plan({ eq: group.storedValues(entity, tS, read.window, share, serial) });
        // A get of a write-sharded row reads every shard.
        return {
          starts: plan.ranges.map((r) => r.start),
          rowsPerRange: rowsPerLogicalRow([plan]),
          rowsReturned: 1,
        };
      }
    }
  }

  /** The ranges' starts, and the physical rows each logical row they read spans (its write shards). */
  private starts(queries: Query[]): { starts: Buffer[]; shards: number } {
    const plans = queries.map((query) => this.group.schema.plan(query));
    return {
      starts: plans.flatMap((plan) => plan.ranges.map((range) => range.start)),
      shards: rowsPerLogicalRow(plans),
    };
  }
}
