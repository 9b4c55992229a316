/**
 * `keyspread/migrate`: re-keying a table (backfill, dual-write, validation, the runbook), the client
 * half of a live re-keying a running `keyspread serve` follows, and analytical export.
 */
export * from "../export/index.js";
export * from "../migrate/index.js";
export * from "../migrate/live/index.js";
