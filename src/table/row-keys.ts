/** The keys a write batch makes, refused row by row: a key that cannot be made names its row. */
import { isReserved } from "./schema-guard.js";

/** A row of a batch whose key cannot be made; the batch was refused before anything was written. */
export class RowKeyError extends Error {
  override readonly name = "RowKeyError";
  constructor(
    /** Position of the row in the batch. */
    readonly index: number,
    readonly reason: string,
  ) {
    super(`row ${index}: ${reason}`);
  }
}

/** The keys `encode` makes for row `index` of a batch; a key that cannot be made refuses the batch. */
export function keysForWrite(index: number, encode: () => Buffer[]): Buffer[] {
  let keys: Buffer[];
  try {
    keys = encode();
  } catch (error) {
    throw new RowKeyError(index, error instanceof Error ? error.message : String(error));
  }
  if (keys.some(isReserved)) {
    throw new RowKeyError(
      index,
      "keys starting with eight 0xFF bytes are reserved for keyspread's schema row",
    );
  }
  return keys;
}
