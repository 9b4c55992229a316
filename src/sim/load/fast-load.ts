/**
 * The fast engine's load: instead of encoding every entity's keys every step, each group's
 * key-space density is built once from a stratified sample of entities (real keys from the
 * schema), each sample carrying its share of the group's rate and, for a group larger than its
 * sample, spreading it up to the next sampled key. Groups whose keys sweep the key space (time or a
 * sequence first) are re-encoded every step from a few representative writes.
 */
import { type CostModel, rangeReadCost, readServiceMs, writeCost } from "../cluster/cluster.js";
import {
  BYTES,
  COST,
  QUANTITIES,
  RANGE_READS,
  ROWS,
  STORED,
  type TabletMap,
  WRITES,
} from "../cluster/tablets.js";
import type { CompiledRead } from "../workload/reads.js";
import type { CompiledGroup } from "../workload/workload.js";
import { writeKey } from "../workload/write-shard-keys.js";
import { Density, type Source } from "./density.js";
import { KeyBounds, KeyReservoir, RecentKeys } from "./key-samples.js";
import type { DynamicSink, LoadGenerator, ReadSample, SplitLayers } from "./load.js";
import type { Layer } from "./split-point.js";

/**
 * Entity footprint keys sampled per group or read pattern: every entity of a small group; for a
 * big one, enough that a salt over the entity deals its samples evenly (±4 % per node at 12 nodes).
 * Splits are not bounded by it: load spreads between sampled keys.
 */
const MAX_SOURCES = 8192;
const LATENCY_SAMPLES = 16;
const MOVING_SAMPLES = 128;
/** Written keys of moving groups kept for size splits (where their bytes lie). */
const RESERVOIR_KEYS = 2048;

/** Stratified entity indices: sample k stands for the entities around `(k + ½)·n/K`. */
function stratified(entities: number, samples: number): number[] {
  const count = Math.min(entities, samples);
  return Array.from({ length: count }, (_, k) => Math.floor(((k + 0.5) * entities) / count));
}

function quantities(partial: Partial<Record<number, number>>): Float64Array {
  const values = new Float64Array(QUANTITIES);
  for (const [quantity, value] of Object.entries(partial)) values[Number(quantity)] = value ?? 0;
  return values;
}

export class FastLoad implements LoadGenerator {
  readonly channels: number;
  /** One per channel: write groups in order (empty for moving groups), then reads. */
  private readonly densities: Density[];
  private readonly readChannel: number;
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
  private readonly recentMoving = new RecentKeys(MOVING_SAMPLES * 4);
  private readonly movingHistory = new KeyReservoir(RESERVOIR_KEYS);
  private readonly written = new KeyBounds();

  constructor(
    private readonly groups: CompiledGroup[],
    reads: CompiledRead[],
    private readonly cost: CostModel,
  ) {
    this.densities = groups.map((group) => new Density(group.moving ? [] : this.groupSources(group)));
    for (const density of this.densities) {
      const bounds = density.keyBounds;
      if (bounds) {
        this.written.add(bounds.min);
        this.written.add(bounds.max);
      }
    }
    this.readChannel = groups.length;
    this.densities.push(new Density(this.readSources(reads)));
    this.channels = this.densities.length;
    this.latencyKeys = this.latencyReads
      .flatMap((read, sample) => read.keys.map((key, range) => ({ key, sample, range })))
      .sort((a, b) => Buffer.compare(a.key, b.key));
  }

  staticRates(start: Buffer, end: Buffer | null, out: Float64Array): void {
    this.densities.forEach((density, channel) => {
      const offset = channel * QUANTITIES;
      density.addBelow(end, out, 1, offset);
      density.addBelow(start, out, -1, offset);
    });
  }

  multipliers(tS: number, dtS: number, out: Float64Array): void {
    this.groups.forEach((group, index) => {
      out[index] = group.multiplier(tS, dtS);
    });
    out[this.readChannel] = 1;
  }

  peakMultipliers(out: Float64Array): void {
    this.groups.forEach((group, index) => {
      out[index] = group.peakMultiplier;
    });
    out[this.readChannel] = 1;
  }

  emitDynamic(tS: number, dtS: number, tablets: TabletMap, sink: DynamicSink): void {
    this.recentMoving.clear();
    this.groups.forEach((group) => {
      if (!group.moving) return;
      const opsPerS = group.opsPerS * group.multiplier(tS, dtS);
      if (opsPerS <= 0) return;
      // Writes differ by time or sequence even for one entity, so sample writes, not entities.
      const opsPerSample = opsPerS / MOVING_SAMPLES;
      const cost = writeCost(group.rowBytes, this.cost);
      const serialAtStep = Math.floor(group.opsPerS * tS);
      for (let k = 0; k < MOVING_SAMPLES; k++) {
        const entity = Math.floor(((k + 0.5) * group.entities) / MOVING_SAMPLES);
        const tEvent = tS + ((k + 0.5) / MOVING_SAMPLES) * dtS;
        const serial = serialAtStep + Math.floor((k * opsPerS * dtS) / MOVING_SAMPLES);
        const key = writeKey(group.schema, group.writeValues(entity, tEvent, serial), serial);
        const bytesPerS = opsPerSample * group.rowBytes;
        sink.add(tablets.find(key), {
          writes: opsPerSample,
          rangeReads: 0,
          rows: 0,
          bytes: bytesPerS,
          stored: bytesPerS,
          cost: opsPerSample * cost,
        });
        this.recentMoving.add(key, opsPerSample * cost);
        this.written.add(key);
        this.movingHistory.add(key, bytesPerS * dtS);
      }
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

  writtenKeys(): { min: Buffer; max: Buffer } | null {
    return this.written.bounds;
  }

  layers(multipliers: Float64Array, integrals: Float64Array, start: Buffer, end: Buffer | null): SplitLayers {
    const load: Layer[] = this.densities.map((density, channel) => ({
      density,
      weights: quantities({ [COST]: multipliers[channel]! }),
    }));
    const bytes: Layer[] = this.densities.map((density, channel) => ({
      density,
      weights: quantities({ [STORED]: integrals[channel]! }),
    }));
    if (this.groups.some((group) => group.moving)) {
      load.push({ density: this.recentMoving.density(start, end), weights: quantities({ [COST]: 1 }) });
      bytes.push({
        density: this.movingHistory.density(start, end),
        weights: quantities({ [STORED]: this.movingHistory.bytesPerKey }),
      });
    }
    return { load, bytes };
  }

  private groupSources(group: CompiledGroup): Source[] {
    const samples = Math.max(1, Math.floor(MAX_SOURCES / group.footprint(0).length));
    const entities = stratified(group.entities, samples);
    const spread = entities.length < group.entities;
    const cost = writeCost(group.rowBytes, this.cost);
    return entities.flatMap((entity) => {
      const starts = group.footprint(entity);
      const writesPerS = group.opsPerS / entities.length / starts.length;
      const bytesPerS = writesPerS * group.rowBytes;
      return starts.map((key) => ({
        key,
        spread,
        values: quantities({
          [WRITES]: writesPerS,
          [BYTES]: bytesPerS,
          [STORED]: bytesPerS,
          [COST]: writesPerS * cost,
        }),
      }));
    });
  }

  private readSources(reads: CompiledRead[]): Source[] {
    return reads.flatMap((read, pattern) => {
      const fanout = read.plan(0, 0, 0).starts.length;
      const entities = stratified(read.group.entities, Math.max(1, Math.floor(MAX_SOURCES / fanout)));
      const spread = entities.length < read.group.entities;
      const rowBytes = read.group.rowBytes;
      const readsPerS = read.perS / entities.length;
      return entities.flatMap((entity, k) => {
        const planned = read.plan(entity, 0, k);
        if (k < LATENCY_SAMPLES) {
          this.latencyReads.push({
            pattern,
            weightPerS: read.perS / Math.min(LATENCY_SAMPLES, entities.length),
            keys: planned.starts,
            serviceMs: readServiceMs(planned.rowsPerRange, rowBytes, this.cost),
          });
        }
        return planned.starts.map((key) => ({
          key,
          spread,
          values: quantities({
            [RANGE_READS]: readsPerS,
            [ROWS]: readsPerS * planned.rowsPerRange,
            [BYTES]: readsPerS * planned.rowsPerRange * rowBytes,
            [COST]: readsPerS * rangeReadCost(planned.rowsPerRange, rowBytes, this.cost),
          }),
        }));
      });
    });
  }
}
