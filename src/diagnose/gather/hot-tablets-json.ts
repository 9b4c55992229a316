/**
 * A recorded hot-tablets answer: the admin API's ListHotTablets response in its JSON form
 * (`{"hotTablets": [{tableName, startKey, endKey, startTime, endTime, nodeCpuUsagePercent}, …]}`,
 * as the REST API and `gcloud bigtable hot-tablets list --format=json` give it, or a bare list).
 * Keys are the API's strings (UTF-8 of the row key). Pure.
 */
import type { HotTablet } from "../decode/hot-tablet.js";
import { tableIdOf } from "../decode/hot-tablet.js";

/** A recorded answer that cannot be read: the entry and field (when one is at fault), the value and what is allowed. */
export class HotTabletsJsonError extends Error {
  override readonly name = "HotTabletsJsonError";
  constructor(
    readonly entry: number | undefined,
    readonly field: string | undefined,
    readonly value: unknown,
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}

function field(entry: Record<string, unknown>, name: string, index: number): string {
  const value = entry[name];
  if (typeof value !== "string")
    throw new HotTabletsJsonError(
      index,
      name,
      value,
      "text",
      `hot tablets [${index}].${name}: ${JSON.stringify(value)} is not text`,
    );
  return value;
}

function time(entry: Record<string, unknown>, name: string, index: number): Date {
  const text = field(entry, name, index);
  const date = new Date(text);
  if (Number.isNaN(date.getTime()))
    throw new HotTabletsJsonError(
      index,
      name,
      text,
      "an ISO-8601 time",
      `hot tablets [${index}].${name}: "${text}" is not an ISO-8601 time`,
    );
  return date;
}

export function parseHotTabletsJson(text: string): HotTablet[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new HotTabletsJsonError(
      undefined,
      undefined,
      text,
      "JSON",
      `hot tablets: not valid JSON: ${(error as Error).message}`,
    );
  }
  const list = Array.isArray(document) ? document : (document as { hotTablets?: unknown })?.hotTablets;
  if (!Array.isArray(list))
    throw new HotTabletsJsonError(
      undefined,
      undefined,
      document,
      '{"hotTablets": [...]} or a list',
      'hot tablets: expected {"hotTablets": [...]} (a ListHotTablets answer) or a list of hot tablets',
    );
  return list.map((raw: unknown, index) => {
    if (typeof raw !== "object" || raw === null)
      throw new HotTabletsJsonError(
        index,
        undefined,
        raw,
        "an object",
        `hot tablets [${index}]: not an object`,
      );
    const entry = raw as Record<string, unknown>;
    const cpu = Number(entry.nodeCpuUsagePercent ?? 0);
    if (!(cpu >= 0 && cpu <= 100))
      throw new HotTabletsJsonError(
        index,
        "nodeCpuUsagePercent",
        entry.nodeCpuUsagePercent,
        "0–100",
        `hot tablets [${index}].nodeCpuUsagePercent: ${JSON.stringify(entry.nodeCpuUsagePercent)}; allowed: 0–100`,
      );
    return {
      table: tableIdOf(field(entry, "tableName", index)),
      startKey: Buffer.from(typeof entry.startKey === "string" ? entry.startKey : "", "utf8"),
      endKey: Buffer.from(typeof entry.endKey === "string" ? entry.endKey : "", "utf8"),
      startTime: time(entry, "startTime", index),
      endTime: time(entry, "endTime", index),
      nodeCpuPercent: cpu,
    };
  });
}
