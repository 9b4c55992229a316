/** A small simulated run for rendering tests: 8 ranges over 2 salt buckets, range 5 hot on a saturated node from t=10. */
import { inflateRawSync } from "node:zlib";
import type { LoadStep } from "../../load/key-load.js";
import type { HeatMatrix } from "../matrix/heat-matrix.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";

export const HOT_ROW = 5;
const STARTS = ["", "00#dev1", "00#dev2", "00#dev3", "01#", "01#dev5", "01#dev6", "01#dev7"];

/** 20 one-second steps; from t=10 range 5 takes `hotWritesPerS` on a node at `hotCpu`. */
function fixtureSteps(hotWritesPerS: number, hotCpu: number, spreadWritesPerS = 500): LoadStep[] {
  return Array.from({ length: 20 }, (_, t) => ({
    t,
    durationS: 1,
    ranges: STARTS.map((start, index) => ({
      start: Buffer.from(start),
      end: index + 1 < STARTS.length ? Buffer.from(STARTS[index + 1]!) : null,
      readsPerS: 100,
      writesPerS: index === HOT_ROW && t >= 10 ? hotWritesPerS : spreadWritesPerS,
      scannedRowsPerS: 0,
      bytesPerS: 1e6,
      nodeCpu: index === HOT_ROW && t >= 10 ? hotCpu : 0.3,
    })),
  }));
}

export function fixtureMatrix(): HeatMatrix {
  return matrixFromSteps(fixtureSteps(50_000, 0.97));
}

/** The designs of a run: the incident, the same on more nodes, and a key that spreads the load. */
export function fixtureRun(): { name: string; steps: LoadStep[]; notes?: string[] }[] {
  return [
    {
      name: "incident",
      steps: fixtureSteps(50_000, 0.97),
      notes: ["misses Google's guidance: hottest node 97% > 90%"],
    },
    { name: "more nodes", steps: fixtureSteps(50_000, 0.6) },
    { name: "salted", steps: fixtureSteps(6_700, 0.4, 6_700) },
  ];
}

/** The data an HTML heatmap page carries (deflated, base64), as its script reads it. */
export function heatmapPageData(html: string): {
  designs: { name: string; labelSeparator: string; rows: { labels: string[]; name?: string }[] }[];
} {
  const packed = /<script type="application\/octet-stream" id="heatmap-data">([^<]*)<\/script>/.exec(html);
  if (!packed) throw new Error("no heatmap data in the page");
  return JSON.parse(inflateRawSync(Buffer.from(packed[1]!, "base64")).toString("utf8"));
}
