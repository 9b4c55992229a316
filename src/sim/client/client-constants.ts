/**
 * The client's CPU per read, as constants of the lab's model (model-constants.ts's form: value,
 * low/high range, source). Measured on this machine by `bench:read` (the table client on
 * Google's Bigtable emulator at 5 ms per call, Node 20), so they are this machine's speed: an
 * application core elsewhere may be 2× faster or slower (docs/tables.md measured a call at
 * 0.27–0.31 ms on a faster machine and about 2.5× that on a slower one), which the ranges carry.
 * A scenario that measured its own application sets them (`client.cpuMsPerCall`, `client.cpuUsPerRow`).
 */
import type { ModelConstant } from "../cluster/model-constants.js";
import type { ScenarioField } from "../scenario/scenario-field.js";

const BENCH_READ = "measured on this machine by bench:read, 2026-12-03";

export const CLIENT_CONSTANTS = {
  clientCpuMsPerCall: {
    field: "client.cpuMsPerCall",
    unit: "ms of client CPU per ReadRows call (set up, end, its responses' framing)",
    value: 0.2,
    low: 0.15,
    high: 0.75,
    worse: "high",
    basis: "sourced",
    source: `${BENCH_READ}: 16 calls against one call of the same 16 ranges, 0.165 ms at 5 ms per call and 0.226 ms at 0 ms (client_cpu_ms_per_call); docs/tables.md measured 0.27–0.31 ms on another machine and about 2.5× that on a slower one (the high end)`,
  },
  clientCpuUsPerRow: {
    field: "client.cpuUsPerRow",
    unit: "µs of client CPU per row read (received, decoded, merged)",
    value: 10,
    low: 5,
    high: 30,
    worse: "high",
    basis: "sourced",
    source: `${BENCH_READ}: one range of 400 rows against one of 100, 8.5 µs at 5 ms per call and 12.4 µs at 0 ms (client_cpu_us_per_row); docs/tables.md measured 8–12 µs per response message on another machine. The emulator sends a row per message and Bigtable many, so real rows may cost less (the low end); a slower machine 2.5× more (the high end)`,
  },
} satisfies Record<string, ModelConstant<ScenarioField>>;
