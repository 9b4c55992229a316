/**
 * An access record as one JSONL line of the format `keyspread heatmap` and `keyspread replay` read
 * (access-record.ts): keys as text or `hex:…`. Pure.
 */

import { displayKey } from "../keys/key-text.js";
import type { AccessRecord } from "./access-record.js";

export function formatAccessLine(record: AccessRecord): string {
  let line = `{"ts":${record.tsMs},"key":${JSON.stringify(displayKey(record.key))},"op":"${record.op}","bytes":${record.bytes}`;
  if (record.latencyMs !== undefined) line += `,"latencyMs":${record.latencyMs}`;
  if (record.node !== undefined) line += `,"node":${JSON.stringify(record.node)}`;
  if (record.rows !== undefined) line += `,"rows":${record.rows}`;
  if (record.end !== undefined)
    line += `,"end":${record.end === null ? "null" : JSON.stringify(displayKey(record.end))}`;
  return `${line}}\n`;
}
