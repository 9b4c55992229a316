/**
 * `keyspread table …`: a salted table from the shell, JSON lines in and out. Rows print as
 * `{"key", "bucket", "values", "cells"}`; cells are UTF-8 text, or `hex:…` when they are not text.
 */
import { type Command, Option } from "commander";
import { type KeySchema, queryFromJson, valuesFromJson, valuesToJson } from "../keys/index.js";
import type { Query } from "../keys/types.js";
import { openStore, STORE_KINDS, type StoreKind } from "../store/open.js";
import {
  type PutRow,
  RowKeyError,
  SaltedTable,
  type TableRow,
  type TableScan,
} from "../table/salted-table.js";
import {
  defaultFormat,
  fail,
  guarded,
  type KeyFormat,
  loadSchema,
  parseJson,
  parsePositiveInt,
  renderKey,
  stdinLines,
  write,
} from "./io.js";

interface TableOptions {
  schema: string;
  store: StoreKind;
  table?: string;
  dir?: string;
  format?: KeyFormat;
}

/** Rows validated and written together; a bad line stops the input before its batch is written. */
const PUT_BATCH = 5_000;

export function registerTableCommands(program: Command): void {
  const table = program
    .command("table")
    .description("create, write and read a salted table (embedded store by default, or Cloud Bigtable)");

  const withTableOptions = (command: Command) =>
    command
      .requiredOption("--schema <file>", "key schema file (.json, .yaml)")
      .addOption(
        new Option("--store <kind>", "where the table lives").choices(STORE_KINDS).default("embedded"),
      )
      .option("--table <name>", "table name (default: the schema's name)")
      .option("--dir <directory>", "embedded store: parent directory of the tables", "./.keyspread")
      .addOption(new Option("--format <format>", "how keys print").choices(["text", "hex"]));

  withTableOptions(table.command("create"))
    .description("create the table and record its schema; prints the table and the schema fingerprint")
    .option("--max-age <seconds>", "bigtable: garbage-collect cells older than this", parsePositiveInt)
    .action(
      guarded(async (options: TableOptions & { maxAge?: number }) => {
        const { salted } = await open(options, { create: true, maxAgeSeconds: options.maxAge });
        await write(
          `${JSON.stringify({ table: salted.store.name, fingerprint: salted.schema.fingerprint, buckets: salted.schema.bucketCount })}\n`,
        );
        await salted.store.close();
      }),
    );

  withTableOptions(table.command("put"))
    .description(
      'write rows from stdin, one JSON object per line: {"key": {field: value…}, "cells": {name: text}}',
    )
    .action(
      guarded(async (options: TableOptions) => {
        const { salted } = await open(options);
        try {
          await putLines(salted);
        } finally {
          await salted.store.close();
        }
      }),
    );

  withTableOptions(table.command("get"))
    .description("read one row by its field values")
    .requiredOption("--key <json>", "the row's field values as a JSON object")
    .action(
      guarded(async (options: TableOptions & { key: string }) => {
        const { salted, format } = await open(options);
        try {
          const row = await salted.get(
            cliInput("--key", () => valuesFromJson(salted.schema, parseJson(options.key))),
          );
          if (row === undefined) fail("table get: no such row", false);
          else await write(`${JSON.stringify(rowToJson(row, format))}\n`);
        } finally {
          await salted.store.close();
        }
      }),
    );

  withTableOptions(table.command("scan"))
    .description("rows matching a query, in logical key order (salt ignored)")
    .option("--query <json>", 'e.g. {"eq": {"device": "d1"}, "range": {"field": "ts", "gte": 1}}', "{}")
    .option("--limit <n>", "at most this many rows", parsePositiveInt)
    .option("--deadline <ms>", "fail the read after this many milliseconds", parsePositiveInt)
    .option("--report", "print the plan and cost (rows scanned, read amplification) on stderr")
    .action(
      guarded(
        async (
          options: TableOptions & { query: string; limit?: number; deadline?: number; report?: boolean },
        ) => {
          const { salted, format } = await open(options);
          try {
            const query = parseQuery(salted.schema, options.query, options.limit);
            await printScan(salted.scan(query, readOptions(options.deadline)), format, options.report);
          } finally {
            await salted.store.close();
          }
        },
      ),
    );

  withTableOptions(table.command("latest"))
    .description(
      "the newest n rows of one entity (the field after the bound ones must be a reverse timestamp)",
    )
    .requiredOption("--key <json>", "the entity's field values as a JSON object")
    .option("-n, --count <n>", "how many rows", parsePositiveInt, 100)
    .option("--deadline <ms>", "fail the read after this many milliseconds", parsePositiveInt)
    .action(
      guarded(async (options: TableOptions & { key: string; count: number; deadline?: number }) => {
        const { salted, format } = await open(options);
        try {
          const eq = cliInput("--key", () => valuesFromJson(salted.schema, parseJson(options.key)));
          const rows = await salted.latest({ eq }, options.count, readOptions(options.deadline));
          await write(rows.map((row) => `${JSON.stringify(rowToJson(row, format))}\n`).join(""));
        } finally {
          await salted.store.close();
        }
      }),
    );

  table
    .command("explain")
    .description("the key ranges a query reads and its fan-out, without reading")
    .requiredOption("--schema <file>", "key schema file (.json, .yaml)")
    .requiredOption("--query <json>", 'e.g. {"eq": {"device": "d1"}, "limit": 100}')
    .addOption(new Option("--format <format>", "how keys print").choices(["text", "hex"]))
    .action(
      guarded(async (options: { schema: string; query: string; format?: KeyFormat }) => {
        const schema = await loadSchema(options.schema);
        const format = options.format ?? defaultFormat(schema);
        const plan = schema.plan(parseQuery(schema, options.query, undefined));
        const ranges = plan.ranges.map((range) => ({
          bucket: range.bucket,
          start: renderKey(range.start, format),
          end: range.end === null ? null : renderKey(range.end, format),
        }));
        await write(`${JSON.stringify({ fanout: plan.fanout, limit: plan.limit ?? null, ranges })}\n`);
      }),
    );
}

async function open(
  options: TableOptions,
  create?: { create: true; maxAgeSeconds: number | undefined },
): Promise<{ salted: SaltedTable; format: KeyFormat }> {
  const schema = await loadSchema(options.schema);
  const name = options.table ?? schema.spec.name;
  try {
    const store = await openStore(options.store, {
      table: name,
      directory: options.dir,
      mustExist: create === undefined,
      ...create,
    });
    const salted = await SaltedTable.open(store, schema, { create: create !== undefined }).catch(
      async (error) => {
        await store.close();
        throw error;
      },
    );
    return { salted, format: options.format ?? defaultFormat(schema) };
  } catch (error) {
    fail(`table ${name}: ${(error as Error).message}`);
  }
}

async function putLines(salted: SaltedTable): Promise<void> {
  let batch: PutRow[] = [];
  let batchLines: number[] = [];
  let written = 0;
  const failed: { line: number; key: Record<string, string | number>; reason: string }[] = [];
  const refuse = (line: number, reason: string): never =>
    fail(
      `table put: line ${line}: ${reason}` +
        ` (${written} rows before line ${batchLines[0] ?? line} were written; nothing from there on)`,
    );
  const flush = async () => {
    const result = await salted.putMany(batch).catch((error) => {
      if (error instanceof RowKeyError) return refuse(batchLines[error.index]!, error.reason);
      throw error;
    });
    for (const failure of result.failed) {
      failed.push({
        line: batchLines[failure.index]!,
        key: valuesToJson(failure.values),
        reason: failure.reason,
      });
    }
    written += batch.length - result.failed.length;
    batch = [];
    batchLines = [];
  };
  for await (const { line, lineNumber } of stdinLines()) {
    try {
      batch.push(putRowFromJson(salted.schema, parseJson(line)));
      batchLines.push(lineNumber);
    } catch (error) {
      refuse(lineNumber, (error as Error).message);
    }
    if (batch.length >= PUT_BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  await write(`${JSON.stringify({ written, failed })}\n`);
  if (failed.length > 0)
    fail(`table put: ${failed.length} rows failed; see "failed" for each line and why`, false);
}

function putRowFromJson(schema: KeySchema, input: unknown): PutRow {
  if (typeof input !== "object" || input === null || !("key" in input)) {
    throw new Error('expected {"key": {field: value…}, "cells": {name: text…}}');
  }
  const { key, cells = {}, ...rest } = input as { key: unknown; cells?: unknown };
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new Error(`unknown member "${extra}"; allowed: key, cells`);
  if (typeof cells !== "object" || cells === null || Array.isArray(cells)) {
    throw new Error("cells must be an object of name → text");
  }
  const cellMap = new Map<string, Buffer>();
  for (const [name, value] of Object.entries(cells)) {
    if (typeof value !== "string" && typeof value !== "number") {
      throw new Error(`cell "${name}" is ${JSON.stringify(value)}; allowed: a string or a number`);
    }
    cellMap.set(name, Buffer.from(String(value)));
  }
  return { values: valuesFromJson(schema, key), cells: cellMap };
}

async function printScan(scan: TableScan, format: KeyFormat, report: boolean | undefined): Promise<void> {
  let pending = "";
  for await (const row of scan) {
    pending += `${JSON.stringify(rowToJson(row, format))}\n`;
    if (pending.length >= 1 << 16) {
      await write(pending);
      pending = "";
    }
  }
  await write(pending);
  if (report) {
    const { plan, ...cost } = scan.report;
    process.stderr.write(`${JSON.stringify({ fanout: plan.fanout, ...cost })}\n`);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function rowToJson(row: TableRow, format: KeyFormat) {
  const cells: Record<string, string> = {};
  for (const [name, value] of row.cells) {
    try {
      cells[name] = UTF8.decode(value);
    } catch {
      cells[name] = `hex:${value.toString("hex")}`;
    }
  }
  return { key: renderKey(row.key, format), bucket: row.bucket, values: valuesToJson(row.values), cells };
}

function parseQuery(schema: KeySchema, text: string, limit: number | undefined): Query {
  const query = cliInput("--query", () => queryFromJson(schema, parseJson(text)));
  return limit === undefined ? query : { ...query, limit };
}

function readOptions(deadlineMs: number | undefined) {
  return deadlineMs === undefined ? {} : { deadlineMs };
}

/** Runs a parse of a command-line argument, failing with the option's name. */
function cliInput<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    fail(`${option}: ${(error as Error).message}`);
  }
}
