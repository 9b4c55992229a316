/** A diagnosis as one JSON object: keys as hex, times as ISO-8601, bigints as decimal text. Pure. */
import type { DiagnoseReport } from "./diagnose.js";

export function diagnoseJson(report: DiagnoseReport): string {
  return JSON.stringify(report, function replace(this: Record<string, unknown>, field, value) {
    const original = this[field];
    if (Buffer.isBuffer(original)) return original.toString("hex");
    if (typeof value === "bigint") return value.toString();
    return value;
  });
}
