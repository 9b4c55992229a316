/**
 * A table's data rows in raw byte order, page by page, without the schema row. Raw order is
 * stable whatever the salt, so "after this key" is a complete and exact resume point.
 */
import { keySuccessor } from "../keys/bytes.js";
import type { KeyRange, Store, StoreReadOptions, StoreRow } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";

/** The table's data keys (a shard's range lies within them). */
export const ALL_DATA: KeyRange = { start: Buffer.alloc(0), end: RESERVED_PREFIX };

/**
 * Up to `limit` data rows of `range` after `after` (from the range's start when undefined), in
 * byte order.
 */
export async function readDataPage(
  store: Store,
  after: Buffer | undefined,
  limit: number,
  range: KeyRange = ALL_DATA,
  options: Omit<StoreReadOptions, "limit"> = {},
): Promise<StoreRow[]> {
  const start = after === undefined ? range.start : keySuccessor(after);
  // Every data key sorts before the reserved prefix: keys starting with it are refused on write.
  const end = range.end === null || range.end.compare(RESERVED_PREFIX) > 0 ? RESERVED_PREFIX : range.end;
  const rows: StoreRow[] = [];
  if (start.compare(end) >= 0) return rows;
  for await (const row of store.read([{ start, end }], { ...options, limit })) rows.push(row);
  return rows;
}

/** Every data row of `range` (default: the table), as pages of up to `pageSize` rows. */
export async function* dataPages(
  store: Store,
  pageSize: number,
  range: KeyRange = ALL_DATA,
): AsyncGenerator<StoreRow[]> {
  let after: Buffer | undefined;
  for (;;) {
    const page = await readDataPage(store, after, pageSize, range);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.key;
  }
}
