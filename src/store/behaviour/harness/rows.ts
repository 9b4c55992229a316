/** Building keys, cells and mutations, and reading rows back, for the behaviour suite's tests. */
import type { KeyRange, StoreMutation, StoreRow } from "../../store.js";

export const hex = (text: string): Buffer => Buffer.from(text, "hex");
export const text = (value: string): Buffer => Buffer.from(value);
export const cellsOf = (value: string): Map<string, Buffer> => new Map([["v", Buffer.from(value)]]);
export const put = (key: Buffer, value = key.toString("hex")): StoreMutation => ({
  type: "put",
  key,
  cells: cellsOf(value),
});

export async function collect(rows: AsyncIterable<StoreRow>): Promise<StoreRow[]> {
  const out: StoreRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

export async function keysOf(rows: AsyncIterable<StoreRow>): Promise<string[]> {
  return (await collect(rows)).map((row) => row.key.toString("hex"));
}

export const everything: KeyRange[] = [{ start: Buffer.alloc(0), end: null }];
