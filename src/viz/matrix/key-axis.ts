/**
 * The key axis: which fine key bins share a heatmap row. As in TiDB's Key Visualizer, hot bins keep
 * their own rows and runs of cold neighbours merge, with the hot/cold threshold binary-searched so
 * the axis fits `maxRows`. Rows never merge across a prefix barrier (salt bucket, tenant) unless
 * there are more prefixes than rows.
 */
import { DEFAULT_MAX_ROWS, type HeatMatrixOptions } from "./heat-matrix.js";
import { type NamingSchema, namingSchema } from "./key-fields.js";
import { barrierLevel, type KeyPrefixer, keyPrefixer } from "./key-prefix.js";

/** Rows the axis has when bins hotter than or as hot as `threshold` keep their own row. */
function rowCount(heat: ArrayLike<number>, barriers: ArrayLike<boolean>, threshold: number): number {
  let rows = 0;
  for (let bin = 0; bin < heat.length; bin++) {
    if (startsRow(heat, barriers, threshold, bin)) rows++;
  }
  return rows;
}

function startsRow(
  heat: ArrayLike<number>,
  barriers: ArrayLike<boolean>,
  threshold: number,
  bin: number,
): boolean {
  return bin === 0 || barriers[bin] === true || heat[bin]! >= threshold || heat[bin - 1]! >= threshold;
}

/**
 * Returns the first fine bin of each row, ascending, starting with 0.
 * @param heat per fine bin, e.g. its peak ops/s over time
 * @param barriers `barriers[i]` is true when bin i starts a new logical prefix
 */
export function mergeColdBins(
  heat: ArrayLike<number>,
  barriers: ArrayLike<boolean>,
  maxRows: number,
): number[] {
  if (!Number.isInteger(maxRows) || maxRows < 1) {
    throw new Error(`maxRows ${maxRows}: expected a positive integer`);
  }
  if (heat.length === 0) return [];
  const thresholds = [...new Set(Array.from(heat))].sort((a, b) => a - b);
  thresholds.push(Number.POSITIVE_INFINITY);
  // rowCount falls as the threshold rises: find the lowest threshold that fits.
  let low = 0;
  let high = thresholds.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (rowCount(heat, barriers, thresholds[middle]!) <= maxRows) high = middle;
    else low = middle + 1;
  }
  const threshold = thresholds[low]!;
  const starts: number[] = [];
  for (let bin = 0; bin < heat.length; bin++) {
    if (startsRow(heat, barriers, threshold, bin)) starts.push(bin);
  }
  return starts.length <= maxRows ? starts : evenlySpaced(starts, maxRows);
}

/** More prefixes than rows: keep `count` of the prefix starts, evenly spread, always the first. */
function evenlySpaced(starts: readonly number[], count: number): number[] {
  const picked: number[] = [];
  for (let row = 0; row < count; row++) picked.push(starts[Math.floor((row * starts.length) / count)]!);
  return picked;
}

/**
 * Start keys of the fine bins, from sorted keys seen in the data (every range start of a simulation,
 * or a sample of an access log): `fineBins` quantiles, plus the start of every prefix at the barrier
 * level so no bin straddles two prefixes. Always starts with the empty key.
 */
export function fineBoundaries(
  sortedKeys: readonly Buffer[],
  fineBins: number,
  prefixer: KeyPrefixer,
  barrierLevel: number,
): Buffer[] {
  const picked: Buffer[] = [Buffer.alloc(0)];
  const step = Math.max(1, sortedKeys.length / fineBins);
  for (let position = 0; position < sortedKeys.length; position += step) {
    picked.push(sortedKeys[Math.floor(position)]!);
  }
  if (barrierLevel >= 0) for (const key of sortedKeys) picked.push(prefixer.prefix(key, barrierLevel));
  picked.sort(Buffer.compare);
  return picked.filter((key, index) => index === 0 || !key.equals(picked[index - 1]!));
}

export interface KeyAxisPlan {
  prefixer: KeyPrefixer;
  /** The schema rows are named through, when one is known and compiled. */
  naming: NamingSchema | undefined;
  barrierLevel: number;
  /** Start keys of the fine bins (twice the row budget), merged into rows at the end. */
  boundaries: Buffer[];
  maxRows: number;
}

/** Plans fine key bins from sorted keys seen in the data; prefixes with ≤ maxRows/4 groups are barriers. */
export function planKeyAxis(sortedKeys: readonly Buffer[], options: HeatMatrixOptions): KeyAxisPlan {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 1)
    throw new Error(`maxRows ${maxRows}: expected a positive integer`);
  const prefixer = keyPrefixer(options);
  const level = barrierLevel(prefixer, sortedKeys, Math.max(1, Math.floor(maxRows / 4)));
  return {
    prefixer,
    naming: namingSchema(options.naming ?? options.schema),
    barrierLevel: level,
    boundaries: fineBoundaries(sortedKeys, 2 * maxRows, prefixer, level),
    maxRows,
  };
}
