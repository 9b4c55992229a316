/**
 * Bigtable's hot-tablets report (ListHotTablets) as keyspread reads it, and the same tablet seen in
 * several windows folded into one hot range with how often it recurred. Pure.
 */

/** One entry of the admin API's hot-tablets list. Keys are inclusive at both ends; empty = table edge. */
export interface HotTablet {
  /** The table's id (the last part of `projects/…/tables/ID`). */
  table: string;
  startKey: Buffer;
  endKey: Buffer;
  startTime: Date;
  endTime: Date;
  /** CPU a node spent serving this tablet over the window, 0–100. */
  nodeCpuPercent: number;
}

export interface HotWindow {
  start: Date;
  end: Date;
  cpuPercent: number;
}

/** One key range that was hot in one or more windows. */
export interface HotRange {
  startKey: Buffer;
  endKey: Buffer;
  /** The hottest window's CPU %. */
  maxCpuPercent: number;
  /** In time order; at least the one it was reported hot in. */
  windows: [HotWindow, ...HotWindow[]];
}

/** `projects/p/instances/i/tables/t` → `t`; a bare id stays as it is. */
export function tableIdOf(tableName: string): string {
  return tableName.slice(tableName.lastIndexOf("/") + 1);
}

const rangeId = (tablet: { startKey: Buffer; endKey: Buffer }) =>
  `${tablet.startKey.toString("hex")}:${tablet.endKey.toString("hex")}`;

/** Tablets of one table, grouped by exact key range, hottest first; windows in time order. */
export function hotRanges(tablets: readonly HotTablet[]): HotRange[] {
  const byRange = new Map<string, HotRange>();
  for (const tablet of tablets) {
    const id = rangeId(tablet);
    const window = { start: tablet.startTime, end: tablet.endTime, cpuPercent: tablet.nodeCpuPercent };
    const range = byRange.get(id);
    if (range) {
      range.windows.push(window);
      range.maxCpuPercent = Math.max(range.maxCpuPercent, tablet.nodeCpuPercent);
    } else
      byRange.set(id, {
        startKey: tablet.startKey,
        endKey: tablet.endKey,
        maxCpuPercent: tablet.nodeCpuPercent,
        windows: [window],
      });
  }
  const ranges = [...byRange.values()];
  for (const range of ranges) range.windows.sort((a, b) => a.start.getTime() - b.start.getTime());
  return ranges.sort((a, b) => b.maxCpuPercent - a.maxCpuPercent || Buffer.compare(a.startKey, b.startKey));
}

/** Whether `key` lies in the inclusive range (an empty end key reaches the end of the table). */
export function inHotRange(range: { startKey: Buffer; endKey: Buffer }, key: Buffer): boolean {
  return (
    Buffer.compare(key, range.startKey) >= 0 &&
    (range.endKey.length === 0 || Buffer.compare(key, range.endKey) <= 0)
  );
}

/** Tables other than `tableId` a recorded answer holds tablets of, and how many (a cluster's answer covers all its tables). */
export function tabletsOfOtherTables(
  recorded: readonly HotTablet[],
  tableId: string,
): { table: string; tablets: number }[] {
  const counts = new Map<string, number>();
  for (const tablet of recorded)
    if (tablet.table !== tableId) counts.set(tablet.table, (counts.get(tablet.table) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([table, tablets]) => ({ table, tablets }));
}
