/**
 * The exact engine's load: every write and read as an individual operation with its real key from
 * the schema, entities taking turns in a fixed scrambled order. For small runs and for checking
 * the fast engine.
 */
import { type CostModel, rangeReadCost, scanMs, writeCost } from "./cluster.js";
import { KeyBounds, KeyReservoir, RecentKeys } from "./key-samples.js";
import type { DynamicSink, LoadGenerator, ReadSample } from "./load.js";
import type { CompiledRead } from "./reads.js";
import type { Layer } from "./split-point.js";
import { COST, QUANTITIES, STORED, type TabletMap } from "./tablets.js";
import type { CompiledGroup } from "./workload.js";

/** Recent operation keys kept for choosing load split points (TiKV samples request keys the same way). */
const RECENT_KEYS = 4096;
/** Written keys kept for size splits (where the bytes lie). */
const RESERVOIR_KEYS = 8192;
/** Reads per pattern and step kept for the latency estimate. */
const LATENCY_SAMPLES = 64;

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

const weights = (quantity: number, value: number) => {
  const values = new Float64Array(QUANTITIES);
  values[quantity] = value;
  return values;
};

export class ExactLoad implements LoadGenerator {
  readonly channels = 0;
  private readonly writeStreams: Stream[];
  private readonly readStreams: Stream[];
  private readonly recent = new RecentKeys(RECENT_KEYS);
  private readonly written = new KeyReservoir(RESERVOIR_KEYS);
  private readonly writtenBounds = new KeyBounds();
  private samples: { pattern: number; weightPerS: number; keys: Buffer[]; serviceMs: number }[] = [];

  constructor(
    private readonly groups: CompiledGroup[],
    private readonly reads: CompiledRead[],
    private readonly cost: CostModel,
  ) {
    this.writeStreams = groups.map((group) => ({ turns: new Turns(group.entities), carry: 0, serial: 0 }));
    this.readStreams = reads.map((read) => ({ turns: new Turns(read.group.entities), carry: 0, serial: 0 }));
  }

  staticRates(): void {}

  multipliers(): void {}

  peakMultipliers(): void {}

  emitDynamic(tS: number, dtS: number, tablets: TabletMap, sink: DynamicSink): void {
    this.groups.forEach((group, index) => {
      const stream = this.writeStreams[index]!;
      const count = this.take(stream, group.opsPerS * group.multiplier(tS, dtS) * dtS);
      const cost = writeCost(group.rowBytes, this.cost) / dtS;
      const bytesPerS = group.rowBytes / dtS;
      for (let j = 0; j < count; j++) {
        const tEvent = tS + ((j + 0.5) / count) * dtS;
        const key = group.schema.encode(group.writeValues(stream.turns.next(), tEvent, stream.serial++));
        sink.add(tablets.find(key), 1 / dtS, 0, 0, bytesPerS, bytesPerS, cost);
        this.recent.add(key, cost);
        this.written.add(key, group.rowBytes);
        this.writtenBounds.add(key);
      }
    });
    this.samples = [];
    this.reads.forEach((read, pattern) => {
      const stream = this.readStreams[pattern]!;
      const count = this.take(stream, read.perS * dtS);
      const rowBytes = read.group.rowBytes;
      const kept = Math.min(count, LATENCY_SAMPLES);
      for (let j = 0; j < count; j++) {
        const planned = read.plan(stream.turns.next(), tS, stream.serial++);
        const cost = rangeReadCost(planned.rowsPerRange, rowBytes, this.cost) / dtS;
        for (const key of planned.starts) {
          sink.add(
            tablets.find(key),
            0,
            1 / dtS,
            planned.rowsPerRange / dtS,
            (planned.rowsPerRange * rowBytes) / dtS,
            0,
            cost,
          );
          this.recent.add(key, cost);
        }
        if (j < kept) {
          this.samples.push({
            pattern,
            weightPerS: read.perS / kept,
            keys: planned.starts,
            serviceMs: scanMs(planned.rowsPerRange, rowBytes, this.cost.capacity),
          });
        }
      }
    });
  }

  readSamples(tablets: TabletMap): ReadSample[] {
    return this.samples.map((sample) => ({
      pattern: sample.pattern,
      weightPerS: sample.weightPerS,
      tablets: sample.keys.map((key) => tablets.find(key)),
      serviceMs: sample.serviceMs,
    }));
  }

  writtenKeys(): { min: Buffer; max: Buffer } | null {
    return this.writtenBounds.bounds;
  }

  layers(): { load: Layer[]; bytes: Layer[] } {
    return {
      load: [{ density: this.recent.density(), weights: weights(COST, 1) }],
      bytes: [{ density: this.written.density(), weights: weights(STORED, this.written.bytesPerKey) }],
    };
  }

  /** Whole operations due this step; the fraction carries over so long runs keep the exact rate. */
  private take(stream: Stream, expected: number): number {
    const due = expected + stream.carry;
    const count = Math.floor(due);
    stream.carry = due - count;
    return count;
  }
}
