/**
 * What tests asked the emulator, which it ignores itself (initial splits, app profiles): the
 * wrapper in emulator/main.go records them in .emulator/run/PORT.requests.jsonl.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface RecordedRequest {
  method: string;
  /** Data requests: the table's full name and the app profile ("" for the instance default). */
  table?: string;
  appProfileId?: string;
  /** Data requests: the values of their `x-goog-request-params` header (the real service routes by it). */
  requestParams?: string[];
  /** CreateTable: the request as proto JSON (bytes in base64). */
  request?: {
    tableId: string;
    table?: { columnFamilies?: Record<string, { gcRule?: unknown }> };
    initialSplits?: { key: string }[];
  };
}

export function recordedRequests(): RecordedRequest[] {
  const port = process.env.BIGTABLE_EMULATOR_HOST?.split(":").pop();
  const file = join(process.cwd(), ".emulator", "run", `${port}.requests.jsonl`);
  if (!existsSync(file)) {
    throw new Error(
      `${file} does not exist: start the emulator with scripts/emulator.sh (it records requests)`,
    );
  }
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedRequest);
}

/** The data requests (method, app profile) made on one table, in order. */
export function requestsOn(tableId: string): { method: string; appProfileId: string }[] {
  return recordedRequests()
    .filter((r) => r.table?.endsWith(`/tables/${tableId}`))
    .map((r) => ({ method: r.method, appProfileId: r.appProfileId ?? "" }));
}

/** The routing header of each data request made on one table, in order, decoded. */
export function routingOn(tableId: string): { method: string; params: Record<string, string>[] }[] {
  return recordedRequests()
    .filter((r) => r.table?.endsWith(`/tables/${tableId}`))
    .map((r) => ({
      method: r.method,
      params: (r.requestParams ?? []).map((value) => Object.fromEntries(new URLSearchParams(value))),
    }));
}

/** The CreateTable request of a table. */
export function createTableRequest(tableId: string): NonNullable<RecordedRequest["request"]> {
  const found = recordedRequests().find((r) => r.method === "CreateTable" && r.request?.tableId === tableId);
  if (found?.request === undefined) throw new Error(`no CreateTable request for ${tableId} was recorded`);
  return found.request;
}
