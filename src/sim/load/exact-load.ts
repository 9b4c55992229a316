/**
 * The exact engine's load: every write and read as an individual operation with its real key from
 * the schema, entities taking turns in a fixed scrambled order. For small runs and for checking
 * the fast engine.
 */
import type { CostModel } from "../cluster/cluster.js";
import type { TabletMap } from "../cluster/tablets.js";
import type { CompiledRead } from "../workload/reads.js";
import type { CompiledGroup } from "../workload/workload.js";
import { writeKey } from "../workload/write-shard-keys.js";
import type { DynamicSink } from "./load.js";
import { type Operation, OperationLoad } from "./operation-load.js";

/** Walks 0..n−1 in a scrambled order that visits every entity once per round. */
class Turns {
  private cursor = 0;
  private readonly stride: number;

  constructor(private readonly n: number) {
    let stride = Math.max(1, Math.floor(n * 0.618_033_988_7));
    while (gcd(stride, n) !== 1) stride++;
    this.stride = stride;
  }

  next(): number {
    return (this.cursor++ * this.stride) % this.n;
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

interface Stream {
  turns: Turns;
  carry: number;
  serial: number;
}

export class ExactLoad extends OperationLoad {
  private readonly writeStreams: Stream[];
  private readonly readStreams: Stream[];

  constructor(
    private readonly groups: CompiledGroup[],
    private readonly reads: CompiledRead[],
    cost: CostModel,
  ) {
    super(cost);
    this.writeStreams = groups.map((group) => ({ turns: new Turns(group.entities), carry: 0, serial: 0 }));
    this.readStreams = reads.map((read) => ({ turns: new Turns(read.group.entities), carry: 0, serial: 0 }));
  }

  override emitDynamic(tS: number, dtS: number, tablets: TabletMap, sink: DynamicSink): void {
    const ops: Operation[] = [];
    this.groups.forEach((group, index) => {
      const stream = this.writeStreams[index]!;
      const count = this.take(stream, group.opsPerS * group.multiplier(tS, dtS) * dtS);
      for (let j = 0; j < count; j++) {
        const tEvent = tS + ((j + 0.5) / count) * dtS;
        const serial = stream.serial++;
        const key = writeKey(group.schema, group.writeValues(stream.turns.next(), tEvent, serial), serial);
        ops.push({ kind: "write", key, bytes: group.rowBytes, weight: 1 });
      }
    });
    this.reads.forEach((read, pattern) => {
      const stream = this.readStreams[pattern]!;
      const count = this.take(stream, read.perS * dtS);
      for (let j = 0; j < count; j++) {
        const planned = read.plan(stream.turns.next(), tS, stream.serial++);
        ops.push({
          kind: "read",
          pattern,
          starts: planned.starts,
          rowsPerRange: planned.rowsPerRange,
          rowBytes: read.group.rowBytes,
          weight: 1,
        });
      }
    });
    this.feed(ops);
    super.emitDynamic(tS, dtS, tablets, sink);
  }

  /** Whole operations due this step; the fraction carries over so long runs keep the exact rate. */
  private take(stream: Stream, expected: number): number {
    const due = expected + stream.carry;
    const count = Math.floor(due);
    stream.carry = due - count;
    return count;
  }
}
