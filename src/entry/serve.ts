/** `keyspread/serve`: the metrics ingest service and the hotspot monitoring it runs (heavy hitters, skew, alerts). */
export * from "../monitor/index.js";
export * from "../serve/index.js";
