/**
 * One row per table records the schema its keys were written with, so an app that opens the
 * table with another bucket count or hash (the game-studio recipe's "100 vs 50 buckets") is refused instead of
 * silently writing rows no reader will find. Its key is eight 0xFF bytes and `keyspread:schema`,
 * so it sorts after every data row (tools that count rows, such as `cbt count`, see one more).
 */
import type { KeySchema } from "../keys/types.js";
import type { Store } from "../store/store.js";

/**
 * Eight 0xFF bytes: UTF-8 text never contains 0xFF and binary keys starting with it are refused
 * on write, so the schema row sorts after every data row and no data read ever reaches it.
 */
export const RESERVED_PREFIX = Buffer.alloc(8, 0xff);
export const SCHEMA_ROW_KEY = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:schema")]);

/** Whether `key` is keyspread's own (no data key may start with the reserved prefix). */
export function isReserved(key: Uint8Array): boolean {
  return Buffer.compare(key.subarray(0, RESERVED_PREFIX.length), RESERVED_PREFIX) === 0;
}

/**
 * A range cut to the data: every key at or above the reserved prefix is keyspread's own, so no
 * read reaches the schema row. Undefined when nothing is left.
 */
export function clipToData<R extends { start: Buffer; end: Buffer | null }>(
  range: R,
): (R & { end: Buffer }) | undefined {
  if (Buffer.compare(range.start, RESERVED_PREFIX) >= 0) return undefined;
  const end =
    range.end === null || Buffer.compare(range.end, RESERVED_PREFIX) > 0 ? RESERVED_PREFIX : range.end;
  return { ...range, end };
}

export class SchemaMismatchError extends Error {
  override readonly name = "SchemaMismatchError";
  constructor(
    readonly store: string,
    readonly differences: SpecDifference[],
  ) {
    super(
      `${store} was written with a different key schema; refusing to mix schemas on one table:\n  ${differences.map(describeDifference).join("\n  ")}`,
    );
  }
}

/** Records `schema` in the table's schema row, through the table's write profile when it has one. */
export async function recordSchema(store: Store, schema: KeySchema, appProfile?: string): Promise<void> {
  const { failed } = await store.write(
    [
      {
        type: "put",
        key: SCHEMA_ROW_KEY,
        replace: true,
        cells: new Map([
          ["fingerprint", Buffer.from(schema.fingerprint)],
          ["spec", Buffer.from(JSON.stringify(schema.spec))],
        ]),
      },
    ],
    appProfile === undefined ? {} : { appProfile },
  );
  if (failed.length > 0)
    throw new Error(`${store.name}: could not write the schema row: ${failed[0]!.reason}`);
}

/** The table has rows but no schema row: other code wrote it, and its keys are unchecked. */
export class UnadoptedTableError extends Error {
  override readonly name = "UnadoptedTableError";
  constructor(readonly table: string) {
    super(
      `${table} has rows but no keyspread schema row (written by other code?); adopt it instead, which first checks that its keys decode under the schema: table create --adopt / adoptTable()`,
    );
  }
}

/** The table has no schema row and the caller did not ask to create one: create or adopt it first. */
export class MissingSchemaRowError extends Error {
  override readonly name = "MissingSchemaRowError";
  constructor(readonly table: string) {
    super(
      `${table} has no keyspread schema row; create the table first (table create / { create: true }), or adopt a table other code wrote (table create --adopt / adoptTable)`,
    );
  }
}

/**
 * Checks the table's schema row against `schema`; with `create`, writes it when the table has
 * none and no rows either (a table with rows is adopted instead: `adoptTable` checks its keys
 * first). Throws SchemaMismatchError listing every difference.
 */
export async function guardSchema(
  store: Store,
  schema: KeySchema,
  create: boolean,
  writeProfile?: string,
): Promise<void> {
  const row = await store.get(SCHEMA_ROW_KEY);
  if (row === undefined) {
    if (!create) throw new MissingSchemaRowError(store.name);
    for await (const _ of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }], { limit: 1 })) {
      throw new UnadoptedTableError(store.name);
    }
    await recordSchema(store, schema, writeProfile);
    return;
  }
  const fingerprint = row.cells.get("fingerprint")?.toString();
  if (fingerprint === schema.fingerprint) return;
  const stored = row.cells.get("spec")?.toString();
  const differences = stored === undefined ? [] : specDifferences(JSON.parse(stored), schema.spec, "");
  throw new SchemaMismatchError(
    store.name,
    differences.length > 0
      ? differences
      : [{ path: "fingerprint", table: fingerprint, schema: schema.fingerprint }],
  );
}

/** A path where the table's recorded spec and the schema's differ, with each side's value there. */
export interface SpecDifference {
  path: string;
  table: unknown;
  schema: unknown;
}

/** Where two JSON values differ, path by path (`salt.buckets`, `segments[1].codec`). */
export function specDifferences(table: unknown, schema: unknown, path: string): SpecDifference[] {
  if (isObject(table) && isObject(schema)) {
    const keys = new Set([...Object.keys(table), ...Object.keys(schema)]);
    return [...keys].flatMap((key) =>
      specDifferences(
        table[key],
        schema[key],
        Array.isArray(table) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
      ),
    );
  }
  if (JSON.stringify(table) === JSON.stringify(schema)) return [];
  return [{ path: path || "(schema)", table, schema }];
}

/** `salt.buckets: table has 100, schema has 50`. */
function describeDifference({ path, table, schema }: SpecDifference): string {
  return `${path}: table has ${JSON.stringify(table)}, schema has ${JSON.stringify(schema)}`;
}

/** Paths where two JSON values differ, e.g. `salt.buckets: table has 100, schema has 50`. */
export function diffJson(table: unknown, schema: unknown, path: string): string[] {
  return specDifferences(table, schema, path).map(describeDifference);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * For tables read with a schema the caller names (backfill sources, exports): a table that records
 * a schema must record this one; a table written without keyspread has no schema row and passes.
 */
export async function guardRecordedSchema(store: Store, schema: KeySchema): Promise<void> {
  if (await store.get(SCHEMA_ROW_KEY)) await guardSchema(store, schema, false);
}
