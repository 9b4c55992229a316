/**
 * Five planted problems, each a table's rows and the recorded hot-tablets answer that fits it, with
 * the diagnosis written down before the code was run (docs/bigtable.md lists the sources):
 * - a time-first tail: every write lands after the last (Google, "Schema design best practices":
 *   timestamps at the start of a row key put all writes on one node) — a moving tail;
 * - one hot device under tenant#deviceId#reverseTs: one writer's newest rows side by side (Key
 *   Visualizer's "hot key": a single bright row band) — one hot entity, fix the key;
 * - a narrow hot range: one tablet over three neighbouring devices, one of them writing most (as a
 *   real tablet's boundaries fall around a hot writer) — few entities, fix the key;
 * - one tenant spread wide: a tenant's many devices warm a band of tablets (Key Visualizer's wide
 *   bright band over a key prefix) — many entities, capacity, not the key;
 * - an even salted load: salt buckets spread the writes, every tablet warm (Key Visualizer's even
 *   heat) — an even load near capacity, add nodes.
 */
import { parseSchema } from "../../keys/schema.js";
import type { KeySchema } from "../../keys/types.js";
import type { HotTablet } from "../decode/hot-tablet.js";
import type { DiagnosisKind, Remedy } from "../diagnosis/classify.js";

export interface PlantedProblem {
  name: string;
  schema: KeySchema;
  /** The table's rows (keys), sorted. */
  keys: Buffer[];
  /** The recorded ListHotTablets answer, of table `table`. */
  hotTablets: (table: string) => HotTablet[];
  nodes: number;
  /** Written down first. */
  expected: { kind: DiagnosisKind; remedy: Remedy; keyProblem: boolean };
  /** The CPU the hot tablets recorded (the hottest node at the peak; the mean over the nodes for a load they share), 0–1. */
  recordedCpu: number;
}

const T0 = Date.parse("2026-11-30T10:00:00Z");
const WINDOW_MS = 15 * 60_000;
const text = (segments: string, salt = "") =>
  parseSchema(`version: 1\nname: planted\nlayout: text\nseparator: "#"\nsegments:\n${segments}${salt}`);
const string = (field: string) => `  - field: ${field}\n    codec: { type: string }\n`;
const time = (reverse: boolean) =>
  `  - field: ts\n    codec: { type: timestamp, unit: ms${reverse ? ", reverse: true" : ""} }\n`;

/** A deterministic generator (the same rows every run). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const device = (n: number) => `d-${String(n).padStart(5, "0")}`;

function tablet(table: string, startKey: Buffer, endKey: Buffer, cpu: number, window = 0): HotTablet {
  return {
    table,
    startKey,
    endKey,
    startTime: new Date(T0 + window * WINDOW_MS),
    endTime: new Date(T0 + (window + 1) * WINDOW_MS),
    nodeCpuPercent: cpu,
  };
}

const sorted = (keys: Buffer[]) =>
  [...new Map(keys.map((key) => [key.toString("hex"), key])).values()].sort(Buffer.compare);

const tenantDevice = text(string("tenant") + string("deviceId") + time(true));

/** Rows of many devices of three tenants over the last day, `extra` rows for the devices named. */
function fleetRows(rows: number, extra: Record<string, { tenant: string; rows: number }> = {}): Buffer[] {
  const next = random(7);
  const keys: Buffer[] = [];
  const tenants = ["acme", "bigco", "cyan"];
  for (let i = 0; i < rows; i++)
    keys.push(
      tenantDevice.encode({
        tenant: tenants[i % 3]!,
        deviceId: device(Math.floor(next() * 400)),
        ts: new Date(T0 - Math.floor(next() * 86_400_000)),
      }),
    );
  for (const [id, { tenant, rows: count }] of Object.entries(extra))
    for (let i = 0; i < count; i++)
      keys.push(
        tenantDevice.encode({ tenant, deviceId: id, ts: new Date(T0 - Math.floor(next() * 3_600_000)) }),
      );
  return sorted(keys);
}

/** The first and last of `keys` that satisfy `inside`. */
function span(keys: Buffer[], inside: (key: Buffer) => boolean): [Buffer, Buffer] {
  const within = keys.filter(inside);
  return [within[0]!, within.at(-1)!];
}

const of = (schema: KeySchema, field: string) => (key: Buffer) => String(schema.decode(key).values[field]);

export function plantedProblems(rows = 3000): PlantedProblem[] {
  const timeFirst = text(time(false) + string("deviceId"));
  const tail = (() => {
    const next = random(11);
    return sorted(
      Array.from({ length: rows }, () =>
        timeFirst.encode({
          ts: new Date(T0 - Math.floor(next() * 86_400_000)),
          deviceId: device(Math.floor(next() * 500)),
        }),
      ),
    );
  })();

  const hotDevice = fleetRows(rows, { [device(4242)]: { tenant: "acme", rows: 400 } });
  // A few rows of each device, and one of three neighbours writing most: a narrow band of three devices.
  const narrow = fleetRows(rows, { [device(201)]: { tenant: "bigco", rows: 400 } });
  const tenantWide = (() => {
    const next = random(13);
    const keys = fleetRows(rows);
    // The tenant "delta" runs 2,000 devices, each a row or two in the sample.
    for (let i = 0; i < rows / 2; i++)
      keys.push(
        tenantDevice.encode({
          tenant: "delta",
          deviceId: device(Math.floor(next() * 2000)),
          ts: new Date(T0 - Math.floor(next() * 86_400_000)),
        }),
      );
    return sorted(keys);
  })();

  const salted = text(string("deviceId") + time(true), "salt:\n  buckets: 8\n  fields: [deviceId]\n");
  const even = (() => {
    const next = random(17);
    return sorted(
      Array.from({ length: rows }, () =>
        salted.encode({
          deviceId: device(Math.floor(next() * 5000)),
          ts: new Date(T0 - Math.floor(next() * 86_400_000)),
        }),
      ),
    );
  })();
  const tenantOf = of(tenantDevice, "tenant");
  const deviceOf = of(tenantDevice, "deviceId");
  return [
    {
      name: "time-first tail",
      schema: timeFirst,
      keys: tail,
      nodes: 3,
      // The newest rows to the table's end, hot in four windows in a row.
      hotTablets: (table) =>
        [0, 1, 2, 3].map((window) =>
          tablet(table, tail[tail.length - 20]!, Buffer.alloc(0), 91 - window, window),
        ),
      expected: { kind: "moving-tail", remedy: "lead-with-a-spreading-field", keyProblem: true },
      recordedCpu: 0.91,
    },
    {
      name: "one hot entity under a reverse timestamp",
      schema: tenantDevice,
      keys: hotDevice,
      nodes: 3,
      hotTablets: (table) => {
        const [start, end] = span(hotDevice, (key) => deviceOf(key) === device(4242));
        return [tablet(table, start, end, 92, 0), tablet(table, start, end, 90, 1)];
      },
      expected: { kind: "one-hot-entity", remedy: "spread-the-entity", keyProblem: true },
      recordedCpu: 0.92,
    },
    {
      name: "a narrow hot range",
      schema: tenantDevice,
      keys: narrow,
      nodes: 3,
      hotTablets: (table) => {
        const [start, end] = span(
          narrow,
          (key) => tenantOf(key) === "bigco" && deviceOf(key) >= device(200) && deviceOf(key) <= device(202),
        );
        return [tablet(table, start, end, 95, 0), tablet(table, start, end, 93, 1)];
      },
      expected: { kind: "narrow-hot-range", remedy: "spread-the-few-keys", keyProblem: true },
      recordedCpu: 0.95,
    },
    {
      name: "one tenant spread wide",
      schema: tenantDevice,
      keys: tenantWide,
      nodes: 3,
      // The tenant's band in three tablets, each on a node of its own, all warm at once.
      hotTablets: (table) => {
        const band = tenantWide.filter((key) => tenantOf(key) === "delta");
        const third = Math.floor(band.length / 3);
        return [0, 1, 2].map((part) =>
          tablet(
            table,
            band[part * third]!,
            part === 2 ? band.at(-1)! : band[(part + 1) * third - 1]!,
            [84, 86, 85][part]!,
          ),
        );
      },
      expected: { kind: "wide-hot-range", remedy: "capacity-not-the-key", keyProblem: false },
      // Three tablets at 84–86 % on three nodes: 85 % a node.
      recordedCpu: 0.85,
    },
    {
      name: "an even salted load",
      schema: salted,
      keys: even,
      nodes: 3,
      // Six tablets over the whole key space, each about 45 % of a node: 270 % on three nodes.
      hotTablets: (table) => {
        const sixth = Math.floor(even.length / 6);
        return [0, 1, 2, 3, 4, 5].map((part) =>
          tablet(
            table,
            part === 0 ? Buffer.alloc(0) : even[part * sixth]!,
            part === 5 ? Buffer.alloc(0) : even[(part + 1) * sixth - 1]!,
            [45, 44, 46, 45, 44, 46][part]!,
          ),
        );
      },
      expected: { kind: "even-near-capacity", remedy: "add-nodes", keyProblem: false },
      recordedCpu: 0.9,
    },
  ];
}
