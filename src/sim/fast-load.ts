/**
 * The fast engine's load: instead of encoding every entity's keys every step, each group's
 * key-space footprint is computed once from a stratified sample of entities (real keys from the
 * schema), and each sample carries its share of the group's rate. Groups whose keys sweep the key
 * space (time or a sequence first) are re-encoded every step from a few representative writes.
 */
import { type NodeCapacity, rangeReadCost, scanMs, writeCost } from "./cluster.js";
import type { LoadGenerator, ReadSample, TabletLoad } from "./load.js";
import type { CompiledRead } from "./reads.js";
import type { SplitCandidate, Tablet, TabletMap } from "./tablets.js";
import type { CompiledGroup } from "./workload.js";

/**
 * Footprint keys sampled per group or read pattern: every entity of a small group; for a big one,
 * enough that a salt over the entity still deals its samples evenly (±4 % per node at 12 nodes).
 */
const MAX_SOURCES = 8192;
const LATENCY_SAMPLES = 16;
const MOVING_SAMPLES = 128;

interface Source {
  key: Buffer;
  /** Index of the write group whose arrival multiplier scales it, or -1 for reads. */
  group: number;
  writesPerS: number;
  rangesPerS: number;
  rowsPerS: number;
  bytesPerS: number;
  costPerS: number;
}

/** Stratified entity indices: sample k stands for the entities around `(k + ½)·n/K`. */
function stratified(entities: number, samples: number): number[] {
  const count = Math.min(entities, samples);
  return Array.from({ length: count }, (_, k) => Math.floor(((k + 0.5) * entities) / count));
}

/** Sums of the sources inside one tablet, valid while the tablet spans `[start, end)`. */
interface TabletSums {
  start: Buffer;
  end: Buffer | null;
  /** Per write group g: writes, bytes, cost at `3g…3g+2`; then reads: ranges, rows, bytes, cost. */
  values: Float64Array;
}

export class FastLoad implements LoadGenerator {
  /** Sorted by key. */
  private readonly sources: Source[];
  private readonly sums = new WeakMap<Tablet, TabletSums>();
  private readonly readsAt: number;
  private readonly latencyReads: {
    pattern: number;
    weightPerS: number;
    keys: Buffer[];
    serviceMs: number;
  }[] = [];
  /** Every latency-sample key in key order, with where it goes, so one merge walk places them all. */
  private readonly latencyKeys: { key: Buffer; sample: number; range: number }[] = [];
  private latencyTablets: number[][] = [];
  private latencyVersion = -1;
  private moving: { key: Buffer; opsPerS: number }[] = [];
  private readonly multipliers: number[];

  constructor(
    private readonly groups: CompiledGroup[],
    reads: CompiledRead[],
    private readonly capacity: NodeCapacity,
  ) {
    const sources: Source[] = [];
    groups.forEach((group, index) => {
      if (group.moving) return;
      const samples = Math.max(1, Math.floor(MAX_SOURCES / group.footprint(0).length));
      const entities = stratified(group.entities, samples);
      const cost = writeCost(group.rowBytes, capacity);
      for (const entity of entities) {
        const starts = group.footprint(entity);
        const writesPerS = group.opsPerS / entities.length / starts.length;
        for (const key of starts) {
          sources.push({
            key,
            group: index,
            writesPerS,
            rangesPerS: 0,
            rowsPerS: 0,
            bytesPerS: writesPerS * group.rowBytes,
            costPerS: writesPerS * cost,
          });
        }
      }
    });
    reads.forEach((read, pattern) => {
      const fanout = read.plan(0, 0, 0).starts.length;
      const entities = stratified(read.group.entities, Math.max(1, Math.floor(MAX_SOURCES / fanout)));
      entities.forEach((entity, k) => {
        const planned = read.plan(entity, 0, k);
        const readsPerS = read.perS / entities.length;
        const rowBytes = read.group.rowBytes;
        for (const key of planned.starts) {
          sources.push({
            key,
            group: -1,
            writesPerS: 0,
            rangesPerS: readsPerS,
            rowsPerS: readsPerS * planned.rowsPerRange,
            bytesPerS: readsPerS * planned.rowsPerRange * rowBytes,
            costPerS: readsPerS * rangeReadCost(planned.rowsPerRange, rowBytes, capacity),
          });
        }
        if (k < LATENCY_SAMPLES) {
          this.latencyReads.push({
            pattern,
            weightPerS: read.perS / Math.min(LATENCY_SAMPLES, entities.length),
            keys: planned.starts,
            serviceMs: scanMs(planned.rowsPerRange, rowBytes, capacity),
          });
        }
      });
    });
    sources.sort((a, b) => Buffer.compare(a.key, b.key));
    this.sources = sources;
    this.readsAt = 3 * groups.length;
    this.multipliers = groups.map(() => 1);
    this.latencyReads.forEach((read, sample) => {
      read.keys.forEach((key, range) => {
        this.latencyKeys.push({ key, sample, range });
      });
    });
    this.latencyKeys.sort((a, b) => Buffer.compare(a.key, b.key));
  }

  emit(tS: number, dtS: number, tablets: TabletMap, load: TabletLoad): void {
    this.groups.forEach((group, index) => {
      this.multipliers[index] = group.multiplier(tS, dtS);
    });
    const groupCount = this.groups.length;
    const r = this.readsAt;
    for (let j = 0; j < tablets.tablets.length; j++) {
      const v = this.sumsOf(tablets, j);
      for (let g = 0; g < groupCount; g++) {
        const m = this.multipliers[g]!;
        if (v[3 * g]! > 0) load.addWrite(j, v[3 * g]! * m, v[3 * g + 1]! * m, v[3 * g + 2]! * m);
      }
      if (v[r]! > 0) load.addRead(j, v[r]!, v[r + 1]!, v[r + 2]!, v[r + 3]!);
    }
    this.moving = [];
    this.groups.forEach((group, index) => {
      if (!group.moving) return;
      const opsPerS = group.opsPerS * this.multipliers[index]!;
      if (opsPerS <= 0) return;
      // Writes differ by time or sequence even for one entity, so sample writes, not entities.
      const entities = Array.from({ length: MOVING_SAMPLES }, (_, k) =>
        Math.floor(((k + 0.5) * group.entities) / MOVING_SAMPLES),
      );
      const opsPerSample = opsPerS / entities.length;
      const cost = writeCost(group.rowBytes, this.capacity);
      const serialAtStep = Math.floor(group.opsPerS * tS);
      entities.forEach((entity, k) => {
        const tEvent = tS + ((k + 0.5) / entities.length) * dtS;
        const serial = serialAtStep + Math.floor((k * opsPerS * dtS) / entities.length);
        const key = group.schema.encode(group.writeValues(entity, tEvent, serial));
        this.moving.push({ key, opsPerS: opsPerSample });
        load.addWrite(tablets.find(key), opsPerSample, opsPerSample * group.rowBytes, opsPerSample * cost);
      });
    });
  }

  readSamples(tablets: TabletMap): ReadSample[] {
    if (this.latencyVersion !== tablets.version) {
      this.latencyTablets = this.latencyReads.map((read) => new Array<number>(read.keys.length).fill(0));
      let tablet = 0;
      const list = tablets.tablets;
      for (const { key, sample, range } of this.latencyKeys) {
        while (tablet + 1 < list.length && Buffer.compare(list[tablet + 1]!.start, key) <= 0) tablet++;
        this.latencyTablets[sample]![range] = tablet;
      }
      this.latencyVersion = tablets.version;
    }
    return this.latencyReads.map((read, sample) => ({
      pattern: read.pattern,
      weightPerS: read.weightPerS,
      tablets: this.latencyTablets[sample]!,
      serviceMs: read.serviceMs,
    }));
  }

  candidates(tablets: TabletMap, index: number): SplitCandidate[] {
    const start = tablets.tablets[index]!.start;
    const end = tablets.end(index);
    const inside = (key: Buffer) =>
      Buffer.compare(key, start) >= 0 && (end === null || Buffer.compare(key, end) < 0);
    const candidates: SplitCandidate[] = [];
    for (let s = this.lowerBound(start); s < this.sources.length && inside(this.sources[s]!.key); s++) {
      const source = this.sources[s]!;
      const m = source.group >= 0 ? this.multipliers[source.group]! : 1;
      candidates.push({ key: source.key, weight: source.writesPerS * m + source.rangesPerS });
    }
    for (const write of this.moving)
      if (inside(write.key)) candidates.push({ key: write.key, weight: write.opsPerS });
    return candidates;
  }

  private lowerBound(key: Buffer): number {
    let low = 0;
    let high = this.sources.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (Buffer.compare(this.sources[middle]!.key, key) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The static sources' sums for tablet `index`, recomputed only when the tablet's span changed. */
  private sumsOf(tablets: TabletMap, index: number): Float64Array {
    const tablet = tablets.tablets[index]!;
    const end = tablets.end(index);
    const cached = this.sums.get(tablet);
    if (cached && cached.start === tablet.start && cached.end === end) return cached.values;
    const values = new Float64Array(this.readsAt + 4);
    const r = this.readsAt;
    for (let s = this.lowerBound(tablet.start); s < this.sources.length; s++) {
      const source = this.sources[s]!;
      if (end !== null && Buffer.compare(source.key, end) >= 0) break;
      if (source.group >= 0) {
        values[3 * source.group]! += source.writesPerS;
        values[3 * source.group + 1]! += source.bytesPerS;
        values[3 * source.group + 2]! += source.costPerS;
      } else {
        values[r]! += source.rangesPerS;
        values[r + 1]! += source.rowsPerS;
        values[r + 2]! += source.bytesPerS;
        values[r + 3]! += source.costPerS;
      }
    }
    this.sums.set(tablet, { start: tablet.start, end, values });
    return values;
  }
}
