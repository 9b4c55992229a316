/** A diagnosis (report, or report and notes) as one JSON object: keys as hex, times as ISO-8601, bigints as decimal text. Pure. */
export function diagnoseJson(diagnosis: object): string {
  return JSON.stringify(diagnosis, function replace(this: Record<string, unknown>, field, value) {
    const original = this[field];
    if (Buffer.isBuffer(original)) return original.toString("hex");
    if (typeof value === "bigint") return value.toString();
    return value;
  });
}
