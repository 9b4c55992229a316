/** Schemas and rows the migration tests share: the case studies' tables before and after re-keying. */
import { compileSchema } from "../keys/schema.js";
import type { KeySchema, SchemaSpec } from "../keys/types.js";
import type { Store } from "../store/store.js";
import { SaltedTable } from "../table/salted-table.js";

const metrics = (salt?: SchemaSpec["salt"]): SchemaSpec => ({
  version: 1,
  name: salt ? "metrics-salted" : "metrics",
  layout: "text",
  separator: "#",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  ...(salt ? { salt } : {}),
});

const gameStudio = (buckets: number, hash?: "md5-hex4"): SchemaSpec => ({
  version: 1,
  name: `game-studio-${hash ?? "xxh32"}-${buckets}`,
  layout: "text",
  separator: "_",
  segments: [
    { literal: "player" },
    { field: "player", codec: { type: "string", raw: true } },
    { field: "action", codec: { type: "string", raw: true } },
    { field: "timestamp", codec: { type: "string", raw: true } },
  ],
  salt: { buckets, width: 3, fields: ["player", "action", "timestamp"], ...(hash ? { hash } : {}) },
});

/** The three re-keyings issue 8 names, each with a row generator for the source. */
export const MIGRATIONS: {
  name: string;
  from: KeySchema;
  to: KeySchema;
  row: (i: number) => { values: Record<string, string | number>; cells: Record<string, string> };
}[] = [
  {
    name: "unsalted → salted (the fleet incident)",
    from: compileSchema(metrics()),
    to: compileSchema(metrics({ buckets: 16, fields: ["deviceId"] })),
    row: (i) => ({
      values: { deviceId: `dev-${i % 7}`, ts: 1_700_000_000_000 + i * 1000 },
      cells: { value: String(i % 97) },
    }),
  },
  {
    name: "100 → 50 buckets (the game-studio recipe)",
    from: compileSchema(gameStudio(100, "md5-hex4")),
    to: compileSchema(gameStudio(50, "md5-hex4")),
    row: gameStudioRow,
  },
  {
    name: "md5-hex4 preset → native xxh32",
    from: compileSchema(gameStudio(100, "md5-hex4")),
    to: compileSchema(gameStudio(100)),
    row: gameStudioRow,
  },
];

function gameStudioRow(i: number) {
  return {
    values: {
      player: String(456_700 + (i % 11)),
      action: ["login", "purchase", "logout"][i % 3]!,
      timestamp: String(20240315000000 + i),
    },
    cells: { amount: String(i) },
  };
}

export async function fillSource(
  store: Store,
  schema: KeySchema,
  row: (i: number) => { values: Record<string, string | number>; cells: Record<string, string> },
  count: number,
): Promise<void> {
  const table = await SaltedTable.open(store, schema, { create: true });
  const { failed } = await table.putMany(Array.from({ length: count }, (_, i) => row(i)));
  if (failed.length > 0) throw new Error(`fixture rows failed: ${failed[0]!.reason}`);
}
