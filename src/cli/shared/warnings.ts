/** Warnings from the library (rows a read skipped, keys outside the salt's buckets) on stderr. */
import type { TableWarning } from "../../table/row-decoder.js";

export function warnOnStderr(warning: TableWarning): void {
  process.stderr.write(`keyspread: warning: ${warning.message}\n`);
}
