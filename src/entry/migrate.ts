/** `keyspread/migrate`: re-keying a table (backfill, dual-write, validation, the runbook) and analytical export. */
export * from "../export/index.js";
export * from "../migrate/index.js";
