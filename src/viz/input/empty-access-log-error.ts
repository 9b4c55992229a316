/** An access log without a record to read (or a CSV log without its header line). */
export class EmptyAccessLogError extends Error {
  override readonly name = "EmptyAccessLogError";
  constructor(
    readonly path: string,
    /** What the file lacked. */
    readonly missing: "records" | "csv-header",
  ) {
    super(
      missing === "records"
        ? `${path}: no access records`
        : `${path}: empty CSV file (expected a header line)`,
    );
  }
}
