/**
 * Node CPU saturation drawn beside the heatmap, not over it: a lane right of the plot gives each
 * key row's share of the time on a node at ≥ 90 % CPU, a lane under it each time column's share of
 * the key space on such nodes. The cells keep their colour (a hatch over thin rows made a moiré).
 * Both functions are self-contained: the HTML page inlines their source, so PNG, SVG and page agree.
 */

/**
 * Lanes over rows `r0..r1-1` and columns `c0..c1-1`. `hot` holds 1 (or "1") per saturated cell,
 * row-major over `columns`; `keyShare` is each row's share of the key space.
 */
export function saturationLanes(
  hot: ArrayLike<number | string>,
  keyShare: ArrayLike<number>,
  columns: number,
  view: { r0: number; r1: number; c0: number; c1: number },
): { byRow: number[]; byColumn: number[] } {
  const byRow: number[] = [];
  const byColumn: number[] = [];
  let keys = 0;
  for (let row = view.r0; row < view.r1; row++) keys += keyShare[row] as number;
  for (let row = view.r0; row < view.r1; row++) {
    let count = 0;
    for (let column = view.c0; column < view.c1; column++) count += Number(hot[row * columns + column]);
    byRow.push(count / Math.max(1, view.c1 - view.c0));
  }
  for (let column = view.c0; column < view.c1; column++) {
    let share = 0;
    for (let row = view.r0; row < view.r1; row++) {
      if (Number(hot[row * columns + column]) === 1) share += keyShare[row] as number;
    }
    byColumn.push(keys > 0 ? share / keys : 0);
  }
  return { byRow, byColumn };
}

/** Lane colour for a share in 0..1: dark grey for none, then dim to full cyan (any share stays visible). */
export function laneColor(share: number): [number, number, number] {
  const none = [44, 44, 52];
  const full = [0, 230, 255];
  const mix = share > 0 ? 0.3 + 0.7 * Math.min(1, share) : 0;
  return [0, 1, 2].map((channel) => Math.round(none[channel]! + (full[channel]! - none[channel]!) * mix)) as [
    number,
    number,
    number,
  ];
}
