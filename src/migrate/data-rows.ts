/**
 * A table's data rows in raw byte order, page by page, without the schema row. Raw order is
 * stable whatever the salt, so "after this key" is a complete and exact resume point.
 */
import { keySuccessor } from "../keys/bytes.js";
import type { Row, Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";

/** Up to `limit` data rows after `after` (from the start when undefined), in byte order. */
export async function readDataPage(store: Store, after: Buffer | undefined, limit: number): Promise<Row[]> {
  const start = after === undefined ? Buffer.alloc(0) : keySuccessor(after);
  const rows: Row[] = [];
  // Every data key sorts before the reserved prefix: keys starting with it are refused on write.
  for await (const row of store.read([{ start, end: RESERVED_PREFIX }], { limit })) rows.push(row);
  return rows;
}

/** Every data row of the table, as pages of up to `pageSize` rows. */
export async function* dataPages(store: Store, pageSize: number): AsyncGenerator<Row[]> {
  let after: Buffer | undefined;
  for (;;) {
    const page = await readDataPage(store, after, pageSize);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.key;
  }
}
