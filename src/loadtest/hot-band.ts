/**
 * Where the hot bands of the run's heatmap sit beside the lab's, in keys. Both are binned on one
 * axis: the key's position in byte order (its first bytes read as a fraction), cut into equal bins
 * over the span the run's keys cover — key space, as Key Visualizer's rows of a long-lived table
 * are, rather than counts of keys (a fresh test table holds only what the test wrote, so per-key
 * counts would spread any band over the whole table). A bin is hot when it carries `HOT_CONTRAST`×
 * an even share of the writes; adjacent hot bins form a band carrying at least `MIN_BAND_SHARE`. The lab's load per key range (its
 * tablets) spreads evenly over the bins it covers.
 */
import { readFile } from "node:fs/promises";
import { parseAccessJsonRecord } from "../access-log/access-record.js";
import type { DesignResult } from "../sim/results/results.js";

export interface KeyAxis {
  from: number;
  to: number;
  bins: number;
}

/** A band: bins `first..last` of the axis (inclusive) and their share of the writes. */
export interface HotBand {
  first: number;
  last: number;
  share: number;
}

export interface HotBandComparison {
  lab: HotBand[];
  measured: HotBand[];
  /** Every band on one side overlaps a band on the other (within one bin); no bands on either side agrees too. */
  agree: boolean;
}

export const HOT_CONTRAST = 4;
/** A band carries at least this share of the writes (a lone bin a little above the threshold is noise). */
export const MIN_BAND_SHARE = 0.1;
const DEFAULT_BINS = 128;

/** The key's first 7 bytes as a fraction of the byte-order key space (7: exact in a double). */
export function keyPosition(key: Buffer): number {
  let position = 0;
  for (let index = 6; index >= 0; index--) position = (position + (key[index] ?? 0)) / 256;
  return position;
}

/** The access log's written keys (JSONL), with their counts. */
export async function loggedWrites(paths: readonly string[]): Promise<Buffer[]> {
  const keys: Buffer[] = [];
  for (const path of paths) {
    for (const line of (await readFile(path, "utf8")).split("\n")) {
      if (line.trim() === "") continue;
      const record = parseAccessJsonRecord(line);
      if (record.op === "write") keys.push(record.key);
    }
  }
  return keys;
}

export function axisOver(keys: readonly Buffer[], bins = DEFAULT_BINS): KeyAxis {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const key of keys) {
    const position = keyPosition(key);
    from = Math.min(from, position);
    to = Math.max(to, position);
  }
  if (!(to > from)) throw new Error("the access log holds fewer than two distinct written keys");
  return { from, to, bins };
}

function binOf(axis: KeyAxis, position: number): number {
  const bin = Math.floor(((position - axis.from) / (axis.to - axis.from)) * axis.bins);
  return Math.min(axis.bins - 1, Math.max(0, bin));
}

export function measuredLoad(axis: KeyAxis, keys: readonly Buffer[]): Float64Array {
  const load = new Float64Array(axis.bins);
  for (const key of keys) load[binOf(axis, keyPosition(key))]!++;
  return load;
}

/** The lab's writes over its steady state, each range's spread evenly over the bins it covers. */
export function labLoad(axis: KeyAxis, result: DesignResult): Float64Array {
  const load = new Float64Array(axis.bins);
  const steadyFrom = result.summary.steadyState.fromS;
  for (const step of result.loadSteps) {
    if (step.t < steadyFrom) continue;
    for (const range of step.ranges) {
      if (range.writesPerS === 0) continue;
      const start = Math.max(axis.from, keyPosition(range.start));
      const end = Math.min(axis.to, range.end === null ? 1 : keyPosition(range.end));
      if (end < start) continue;
      const first = binOf(axis, start);
      const last = binOf(axis, end);
      const width = (axis.to - axis.from) / axis.bins;
      for (let bin = first; bin <= last; bin++) {
        const binStart = axis.from + bin * width;
        const covered =
          end === start ? 1 : (Math.min(end, binStart + width) - Math.max(start, binStart)) / (end - start);
        load[bin]! += range.writesPerS * step.durationS * Math.max(0, covered);
      }
    }
  }
  return load;
}

export function hotBands(load: Float64Array): HotBand[] {
  const total = load.reduce((sum, value) => sum + value, 0);
  if (total === 0) return [];
  const hot = (bin: number) => load[bin]! / total >= HOT_CONTRAST / load.length;
  const bands: HotBand[] = [];
  for (let bin = 0; bin < load.length; bin++) {
    if (!hot(bin)) continue;
    const last = bands.at(-1);
    if (last !== undefined && last.last === bin - 1) {
      last.last = bin;
      last.share += load[bin]! / total;
    } else bands.push({ first: bin, last: bin, share: load[bin]! / total });
  }
  return bands.filter((band) => band.share >= MIN_BAND_SHARE);
}

const near = (a: HotBand, b: HotBand) => a.first <= b.last + 1 && b.first <= a.last + 1;

export function compareHotBands(lab: HotBand[], measured: HotBand[]): HotBandComparison {
  const agree =
    lab.every((band) => measured.some((other) => near(band, other))) &&
    measured.every((band) => lab.some((other) => near(band, other)));
  return { lab, measured, agree };
}
