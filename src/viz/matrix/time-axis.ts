/** The heatmap's time axis: fixed-width columns covering a span. */

export interface TimeAxis {
  /** Start of the first column, seconds: since the run's start, or since the Unix epoch when `epoch`. */
  startS: number;
  columnS: number;
  columns: number;
  /** True for access logs (wall-clock time), false for simulations (seconds since the run began). */
  epoch: boolean;
}

const NICE_COLUMN_S = [
  0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/** Columns of a "nice" width (1 s, 5 s, 1 min, …) aligned to multiples of it, at most `maxColumns`. */
export function niceTimeAxis(firstS: number, lastS: number, maxColumns: number, epoch: boolean): TimeAxis {
  if (!Number.isFinite(firstS) || !Number.isFinite(lastS) || lastS < firstS) {
    throw new Error(`time span ${firstS}..${lastS}: expected finite times, first ≤ last`);
  }
  const wanted = (lastS - firstS) / maxColumns;
  const columnS =
    NICE_COLUMN_S.find(
      (width) => width >= wanted && Math.floor(lastS / width) - Math.floor(firstS / width) < maxColumns,
    ) ?? Math.ceil(wanted / 86400 + 1) * 86400;
  const startS = Math.floor(firstS / columnS) * columnS;
  const columns = Math.max(1, Math.floor(lastS / columnS) - Math.floor(firstS / columnS) + 1);
  return { startS, columnS, columns, epoch };
}

/** Column of time `s`, clamped into the axis. */
export function columnOf(axis: TimeAxis, s: number): number {
  const column = Math.floor((s - axis.startS) / axis.columnS + 1e-9);
  return Math.min(axis.columns - 1, Math.max(0, column));
}
