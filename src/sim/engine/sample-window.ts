/** Node CPU and writes asked and shed over a sample window, summed step by step. */
import { mean } from "../../stats/mean.js";
import { medianOfSorted } from "../../stats/median.js";
import { shedShare } from "../cluster/latency.js";
import type { TabletMap } from "../cluster/tablets.js";
import type { TimelinePoint } from "./measurements.js";

/** What a window reads of the cluster each step: each node's CPU and writes per second. */
export interface NodeLoad {
  readonly nodeCost: Float64Array;
  readonly nodeWrites: Float64Array;
}

export class SampleWindow {
  private readonly cpu: Float64Array;
  private writes = 0;
  private shed = 0;
  start = 0;
  seconds = 0;

  constructor(nodes: number) {
    this.cpu = new Float64Array(nodes);
  }

  add(load: NodeLoad, stepS: number, startS: number): void {
    if (this.seconds === 0) this.start = startS;
    const { nodeCost, nodeWrites } = load;
    for (let n = 0; n < this.cpu.length; n++) {
      this.writes += nodeWrites[n]! * stepS;
      this.shed += nodeWrites[n]! * shedShare(nodeCost[n]!) * stepS;
      this.cpu[n]! += nodeCost[n]! * stepS;
    }
    this.seconds += stepS;
  }

  point(tablets: TabletMap): TimelinePoint {
    const nodeCpu = Array.from(this.cpu, (sum) => sum / this.seconds);
    const sorted = [...nodeCpu].sort((a, b) => a - b);
    return {
      t: this.start,
      nodeCpu,
      hottestNodeCpu: sorted[sorted.length - 1]!,
      medianNodeCpu: medianOfSorted(sorted),
      averageNodeCpu: mean(nodeCpu),
      tablets: tablets.tablets.length,
      writesPerS: this.writes / this.seconds,
      servedWritesPerS: (this.writes - this.shed) / this.seconds,
      shedWriteShare: this.writes > 0 ? this.shed / this.writes : 0,
    };
  }

  reset(startS: number): void {
    this.cpu.fill(0);
    this.writes = 0;
    this.shed = 0;
    this.start = startS;
    this.seconds = 0;
  }
}
