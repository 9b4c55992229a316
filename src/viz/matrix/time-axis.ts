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

/**
 * A time as the heatmaps print it, on axes and in sentences alike: for simulations the seconds
 * since the axis start in s, m or h (`90s`, `12m`, `2.5h`); for logs the UTC clock, finer when
 * the span is short. Self-contained (no outside names): the HTML page inlines its source.
 */
export function timeLabel(s: number, epoch: boolean, spanS: number): string {
  if (epoch) {
    const iso = new Date(s * 1000).toISOString();
    return spanS > 86400 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, spanS >= 600 ? 16 : 19);
  }
  if (s < 120) return `${+s.toFixed(1)}s`;
  if (s < 7200) return `${+(s / 60).toFixed(1)}m`;
  return `${+(s / 3600).toFixed(1)}h`;
}

/**
 * Ticks at a "nice" spacing (about 8 over the span), on multiples of it: `fromS` is on the label's
 * clock (epoch seconds for logs, seconds since the axis start for simulations); each tick gives its
 * offset from `fromS` and its label. Uses only `timeLabel`: the HTML page inlines both.
 */
export function timeTicks(
  fromS: number,
  spanS: number,
  epoch: boolean,
): { offsetS: number; label: string }[] {
  const nice = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  const step = nice.find((candidate) => spanS / candidate <= 8) ?? Math.ceil(spanS / 8 / 86400) * 86400;
  const ticks: { offsetS: number; label: string }[] = [];
  for (let s = Math.ceil(fromS / step - 1e-9) * step; s <= fromS + spanS + 1e-9; s += step) {
    ticks.push({ offsetS: s - fromS, label: timeLabel(s, epoch, spanS) });
  }
  return ticks;
}
