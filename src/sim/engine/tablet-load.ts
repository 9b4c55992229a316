/**
 * The tablets' load and the nodes' sums of it. Static load is kept per node and channel, so a step
 * multiplies channels by nodes; tablets fold it into their odometers only when read (`sync`), so a
 * step costs O(nodes) however many tablets the table has.
 */
import {
  BYTES,
  COST,
  QUANTITIES,
  RANGE_READS,
  ROWS,
  STORED,
  type Tablet,
  type TabletMap,
  WRITES,
} from "../cluster/tablets.js";
import type { DynamicSink, LoadGenerator, ReadSample, SplitLayers, StepLoad } from "../load/load.js";

export class TabletLoad implements DynamicSink {
  /** Each node's CPU and writes per second over the current step. */
  readonly nodeCost: Float64Array;
  readonly nodeWrites: Float64Array;
  /** Tablets dynamic load reached since the split check last took them (`takeTouched`). */
  private readonly touched = new Set<Tablet>();
  private readonly channels: number;
  private readonly multipliers: Float64Array;
  private readonly peaks: Float64Array;
  /** Each channel's multiplier summed over simulated seconds. */
  private readonly integrals: Float64Array;
  /** Static cost and writes per node and channel at multiplier 1 (`node × channels + channel`). */
  private readonly staticCost: Float64Array;
  private readonly staticWrites: Float64Array;
  private stepS = 1;
  /** The end of the current step. */
  nowS = 0;

  constructor(
    readonly tablets: TabletMap,
    private readonly generator: LoadGenerator,
    readonly nodes: number,
  ) {
    this.channels = generator.channels;
    this.multipliers = new Float64Array(this.channels);
    this.peaks = new Float64Array(this.channels);
    generator.peakMultipliers(this.peaks);
    this.integrals = new Float64Array(this.channels);
    this.nodeCost = new Float64Array(nodes);
    this.nodeWrites = new Float64Array(nodes);
    this.staticCost = new Float64Array(nodes * this.channels);
    this.staticWrites = new Float64Array(nodes * this.channels);
    tablets.tablets.forEach((tablet, index) => {
      this.setRates(tablet, tablets.end(index));
    });
    this.sumNodes();
  }

  /** The load of `[tS, tS + stepS)`: the channels' multipliers over the nodes' static load, then the generator's dynamic load. */
  step(tS: number, stepS: number): void {
    this.stepS = stepS;
    this.nowS = tS + stepS;
    const { channels, multipliers } = this;
    this.generator.multipliers(tS, stepS, multipliers);
    for (let c = 0; c < channels; c++) this.integrals[c]! += multipliers[c]! * stepS;
    for (let n = 0; n < this.nodes; n++) {
      let cost = 0;
      let writes = 0;
      for (let c = 0; c < channels; c++) {
        cost += multipliers[c]! * this.staticCost[n * channels + c]!;
        writes += multipliers[c]! * this.staticWrites[n * channels + c]!;
      }
      this.nodeCost[n] = cost;
      this.nodeWrites[n] = writes;
    }
    this.generator.emitDynamic(tS, stepS, this.tablets, this);
  }

  add(index: number, load: StepLoad): void {
    const tablet = this.tablets.tablets[index]!;
    const odometer = this.tablets.columns.odometer;
    const row = tablet.slot * QUANTITIES;
    const dt = this.stepS;
    odometer[row + WRITES]! += load.writes * dt;
    odometer[row + RANGE_READS]! += load.rangeReads * dt;
    odometer[row + ROWS]! += load.rows * dt;
    odometer[row + BYTES]! += load.bytes * dt;
    odometer[row + STORED]! += load.stored * dt;
    odometer[row + COST]! += load.cost * dt;
    this.nodeCost[tablet.node]! += load.cost;
    this.nodeWrites[tablet.node]! += load.writes;
    this.touched.add(tablet);
  }

  /** The tablets dynamic load reached since the last call, in the order it reached them. */
  takeTouched(): Tablet[] {
    const touched = [...this.touched];
    this.touched.clear();
    return touched;
  }

  /** A tablet's odometer reading of one quantity (synced by the caller). */
  read(tablet: Tablet, quantity: number): number {
    return this.tablets.columns.odometer[tablet.slot * QUANTITIES + quantity]!;
  }

  /** The tablet's static rates of `quantities` summed over channels, each at its peak multiplier. */
  peakRate(tablet: Tablet, ...quantities: number[]): number {
    const { rates } = this.tablets.columns;
    const row = tablet.slot * this.channels * QUANTITIES;
    let sum = 0;
    for (let c = 0; c < this.channels; c++) {
      for (const quantity of quantities) sum += this.peaks[c]! * rates[row + c * QUANTITIES + quantity]!;
    }
    return sum;
  }

  /** Sets a tablet's static rates for `[start, end)`, from now on. */
  setRates(tablet: Tablet, end: Buffer | null): void {
    const { rates, syncedAt } = this.tablets.columns;
    const width = this.channels * QUANTITIES;
    const row = rates.subarray(tablet.slot * width, (tablet.slot + 1) * width);
    row.fill(0);
    this.generator.staticRates(tablet.start, end, row);
    syncedAt.set(this.integrals, tablet.slot * this.channels);
  }

  /** Folds the static load since the tablet was last synced into its odometer. */
  sync(tablet: Tablet): void {
    const { channels, integrals } = this;
    const { rates, syncedAt, odometer } = this.tablets.columns;
    const slot = tablet.slot;
    for (let c = 0; c < channels; c++) {
      const elapsed = integrals[c]! - syncedAt[slot * channels + c]!;
      if (elapsed === 0) continue;
      const rateRow = (slot * channels + c) * QUANTITIES;
      for (let q = 0; q < QUANTITIES; q++) odometer[slot * QUANTITIES + q]! += rates[rateRow + q]! * elapsed;
      syncedAt[slot * channels + c] = integrals[c]!;
    }
  }

  syncAll(): void {
    for (const tablet of this.tablets.tablets) this.sync(tablet);
  }

  /** Sums the tablets' static rates per node, after tablets moved or merged. */
  sumNodes(): void {
    const { channels } = this;
    const { rates } = this.tablets.columns;
    this.staticCost.fill(0);
    this.staticWrites.fill(0);
    for (const tablet of this.tablets.tablets) {
      for (let c = 0; c < channels; c++) {
        const rateRow = (tablet.slot * channels + c) * QUANTITIES;
        this.staticCost[tablet.node * channels + c]! += rates[rateRow + COST]!;
        this.staticWrites[tablet.node * channels + c]! += rates[rateRow + WRITES]!;
      }
    }
  }

  /** Bytes stored over the whole table. */
  storedBytes(): number {
    this.syncAll();
    return this.tablets.tablets.reduce((sum, tablet) => sum + this.read(tablet, STORED), 0);
  }

  /** Where load and stored bytes lie now in `[start, end)`. */
  layers(start: Buffer, end: Buffer | null): SplitLayers {
    return this.generator.layers(this.multipliers, this.integrals, start, end);
  }

  /** Reads of the latest step, for the latency estimate. */
  readSamples(): ReadSample[] {
    return this.generator.readSamples(this.tablets);
  }

  /** The lowest and highest keys written so far, or null. */
  writtenKeys(): { min: Buffer; max: Buffer } | null {
    return this.generator.writtenKeys();
  }
}
