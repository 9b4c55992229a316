/**
 * The fast engine's load: instead of encoding every entity's keys every step, each group's
 * key-space footprint is computed once from a stratified sample of entities (real keys from the
 * schema), and each sample carries its share of the group's rate. Groups whose keys sweep the key
 * space (time or a sequence first) are re-encoded every step from a few representative writes.
 */
import { type NodeCapacity, rangeReadCost, scanMs, writeCost } from "./cluster.js";
import type { LoadGenerator, ReadSample, TabletLoad } from "./load.js";
import type { CompiledRead } from "./reads.js";
import type { SplitCandidate, TabletMap } from "./tablets.js";
import type { CompiledGroup } from "./workload.js";

/** Upper bound on sampled footprint keys per group or read pattern. */
const MAX_SOURCES = 8192;
/** Entities sampled per group: enough that one sample carries ≤ 1/8 of the load-split threshold. */
const MIN_ENTITY_SAMPLES = 64;
const MAX_ENTITY_SAMPLES = 1024;
const READ_ENTITY_SAMPLES = 256;
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

export class FastLoad implements LoadGenerator {
  /** Sorted by key. */
  private readonly sources: Source[];
  private readonly sourceTablet: Int32Array;
  private cachedVersion = -1;
  private readonly latencyReads: {
    pattern: number;
    weightPerS: number;
    keys: Buffer[];
    serviceMs: number;
  }[] = [];
  private moving: { key: Buffer; opsPerS: number }[] = [];
  private readonly multipliers: number[];

  constructor(
    private readonly groups: CompiledGroup[],
    reads: CompiledRead[],
    private readonly capacity: NodeCapacity,
    splitOpsPerS: number,
  ) {
    const sources: Source[] = [];
    groups.forEach((group, index) => {
      if (group.moving) return;
      const wanted = Math.ceil(group.opsPerS / (splitOpsPerS / 8));
      const fanout = group.footprint(0).length;
      const samples = Math.max(
        1,
        Math.min(Math.max(MIN_ENTITY_SAMPLES, wanted), MAX_ENTITY_SAMPLES, Math.floor(MAX_SOURCES / fanout)),
      );
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
      const entities = stratified(
        read.group.entities,
        Math.max(1, Math.min(READ_ENTITY_SAMPLES, MAX_SOURCES / fanout)),
      );
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
    this.sourceTablet = new Int32Array(sources.length);
    this.multipliers = groups.map(() => 1);
  }

  emit(tS: number, dtS: number, tablets: TabletMap, load: TabletLoad): void {
    this.groups.forEach((group, index) => {
      this.multipliers[index] = group.multiplier(tS, dtS);
    });
    if (this.cachedVersion !== tablets.version) this.locateSources(tablets);
    const sources = this.sources;
    for (let s = 0; s < sources.length; s++) {
      const source = sources[s]!;
      const tablet = this.sourceTablet[s]!;
      if (source.group >= 0) {
        const m = this.multipliers[source.group]!;
        load.addWrite(tablet, source.writesPerS * m, source.bytesPerS * m, source.costPerS * m);
      } else {
        load.addRead(tablet, source.rangesPerS, source.rowsPerS, source.bytesPerS, source.costPerS);
      }
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
    return this.latencyReads.map((read) => ({
      pattern: read.pattern,
      weightPerS: read.weightPerS,
      tablets: read.keys.map((key) => tablets.find(key)),
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

  /** Sources and tablets are both sorted, so one merge walk places every source. */
  private locateSources(tablets: TabletMap): void {
    let tablet = 0;
    const list = tablets.tablets;
    for (let s = 0; s < this.sources.length; s++) {
      const key = this.sources[s]!.key;
      while (tablet + 1 < list.length && Buffer.compare(list[tablet + 1]!.start, key) <= 0) tablet++;
      this.sourceTablet[s] = tablet;
    }
    this.cachedVersion = tablets.version;
  }
}
