/** A re-keying whose old and new table are one: it writes a new table, and its last step deletes the old one. */
export class SameTableError extends Error {
  override readonly name = "SameTableError";

  /** `table`: the one table both name, as an address. */
  constructor(readonly table: string) {
    super(`--from and --to name the same table (${table}); re-keying writes a new table`);
  }
}
